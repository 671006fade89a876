/**
 * `npm run demo:books [-- --out DIR]`: a quarter of a merchant of record's books, made from nothing
 * through the same services the server runs (issue 34): two vendors selling for a quarter (2026-Q3,
 * in the sandbox) to consumers and businesses in the EU, the UK, the US, Canada, Australia and Japan;
 * monthly subscriptions renewing; refunds whole and in part; a payout statement at the end of each month
 * (payments held PAYOUT_HOLD_DAYS=14), the first two marked paid; and the quarter's tax returns. Writes
 * each statement as CSV and PDF and each return as CSV into DIR (default ./demo-books), checks the
 * books add up, and prints what it wrote.
 *
 * Offline by design: the ECB rate of 30 September 2026 the EU returns need is the bundled table's
 * (src/files/exchange-rates.xml), dated 2026-09-30 for the demo; the CSVs say which day they used.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { renderStatementPdf } from '../src/documents/statement-pdf.ts';
import { statementCsv, taxReportCsv, TAX_SCHEMES } from '../src/domain/books/index.ts';
import { fixedClock } from '../src/domain/clock.ts';
import { formatMinor } from '../src/domain/money/index.ts';
import type { Scope } from '../src/domain/model.ts';
import type { PurchaseRequest } from '../src/domain/checkout/index.ts';
import { createServices, type Wiring } from '../src/services.ts';

const DAY = 86_400_000;
const QUARTER = '2026-Q3';
const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2035 };

/** Who buys, in turn: consumers and businesses where opentill's tax rules differ. */
const BUYERS: Omit<PurchaseRequest, 'productId' | 'email'>[] = [
  { country: 'DE', currency: 'EUR' },
  { country: 'FR', currency: 'EUR' },
  { country: 'US', region: 'CA', zip: '94103', currency: 'USD' },
  { country: 'GB', currency: 'GBP' },
  { country: 'NL', currency: 'EUR' },
  {
    country: 'DE',
    currency: 'EUR',
    businessName: 'Beispiel AG',
    vatId: 'DE136695976',
    buyerAddress: 'Hauptstr. 1, Köln',
  },
  { country: 'CA', region: 'ON', currency: 'USD' },
  { country: 'IT', currency: 'EUR' },
  {
    country: 'FR',
    currency: 'EUR',
    businessName: 'Exemple SARL',
    vatId: 'FR40303265045',
    buyerAddress: '1 rue de la Paix, Paris',
  },
  { country: 'AU', currency: 'USD' },
  { country: 'US', region: 'NY', zip: '10001', currency: 'USD' },
  { country: 'ES', currency: 'EUR' },
  { country: 'JP', currency: 'USD' },
  { country: 'CA', region: 'QC', currency: 'USD' },
  { country: 'US', region: 'OR', zip: '97201', currency: 'USD' },
];

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

async function vendorWithProducts(
  services: Wiring,
  seller: { name: string; country: string; taxId: string; address: string[] },
) {
  const vendor = await services.catalog.createVendor({
    name: seller.name,
    email: `owner@${seller.country.toLowerCase()}.demo.test`,
  });
  await services.catalog.updateVendorSettings(vendor.id, { sellerName: seller.name, ...seller });
  const scope: Scope = { vendorId: vendor.id, environment: 'sandbox' };
  const licence = await services.catalog.createProduct(scope, {
    name: `${seller.name} Pro (lifetime)`,
    type: 'ONETIME',
    prices: [
      { currency: 'USD', value: 49 },
      { currency: 'EUR', value: 45 },
      { currency: 'GBP', value: 39 },
    ],
  });
  const monthly = await services.catalog.createProduct(scope, {
    name: `${seller.name} Team (monthly)`,
    type: 'SUBSCRIPTION',
    chargeFrequency: 'MONTHLY',
    prices: [
      { currency: 'USD', value: 19.99 },
      { currency: 'EUR', value: 18 },
      { currency: 'GBP', value: 16 },
    ],
  });
  return { vendor, scope, products: [licence.id, monthly.id] };
}

type DemoVendor = Awaited<ReturnType<typeof vendorWithProducts>>;
const short = (v: DemoVendor) => v.vendor.name.split(' ')[0]!.toLowerCase();
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const money = (minor: number, currency: string) => `${formatMinor(minor, currency)} ${currency}`;

/** Sells through the quarter: a sale every day or two, renewals as they fall due, and some refunds. */
async function sellTheQuarter(services: Wiring, clock: ReturnType<typeof fixedClock>, vendors: DemoVendor[]) {
  const sold: { scope: Scope; id: string }[] = [];
  let turn = 0;
  for (let day = Date.parse('2026-07-01T09:00:00Z'); day < Date.parse('2026-10-01T00:00:00Z'); day += DAY) {
    clock.set(new Date(day));
    await services.billing.runDue();
    if (new Date(day).getUTCDate() % 2 === 0) continue;
    const v = vendors[turn % vendors.length]!;
    const buyer = BUYERS[Math.floor(turn / 2) % BUYERS.length]!;
    const result = await services.purchases.purchase(v.scope, {
      ...buyer,
      productId: v.products[turn % 3 === 0 ? 1 : 0]!,
      email: `buyer${turn}@example.com`,
      card: CARD,
    });
    if (result.status !== 'PAID') throw new Error(`a demo sale was declined: ${result.message}`);
    sold.push({ scope: v.scope, id: result.transaction.id });
    turn++;
    // Every seventh sale is refunded two days later in part, every eleventh in full.
    if (turn % 7 === 0 || turn % 11 === 0) {
      clock.set(new Date(day + 2 * DAY));
      const { scope, id } = sold[sold.length - 1]!;
      await services.refunds.refund(scope, id, turn % 7 === 0 ? { request: { amount: '5.00' } } : {});
    }
  }
  return sold;
}

async function main() {
  const out = resolve(argument('--out') ?? 'demo-books');
  mkdirSync(out, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'opentill-demo-books-'));
  const clock = fixedClock(new Date('2026-07-01T08:00:00Z'));
  const services = createServices(
    loadConfig({
      OPENTILL_SECRET: 'demo-books-secret-0123456789-0123456789',
      OPENTILL_DATA_DIR: dir,
      SQLITE_FILE: join(dir, 'demo.db'),
      LOG_LEVEL: 'silent',
      PLATFORM_FEE: '5%+0.50USD',
      PAYOUT_HOLD_DAYS: '14',
    }),
    { clock },
  );
  try {
    await services.database.migrate();
    const vendors = [
      await vendorWithProducts(services, {
        name: 'Nordlicht Apps GmbH',
        country: 'DE',
        taxId: 'DE811569869',
        address: ['Torstraße 1', '10119 Berlin'],
      }),
      await vendorWithProducts(services, {
        name: 'Acme Software Inc.',
        country: 'US',
        taxId: 'EIN 12-3456789',
        address: ['1 Main Street', 'Portland, OR 97201'],
      }),
    ];
    const sold = await sellTheQuarter(services, clock, vendors);
    const written = [...(await statements(services, clock, vendors, out)), ...(await returns(services, vendors, out))];
    await check(services, vendors);
    console.log(`${sold.length} sales in ${QUARTER}, ${vendors.length} vendors; wrote to ${out}:`);
    for (const line of written) console.log(`  ${line}`);
  } finally {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A statement per vendor and currency at the end of each month, the first two paid; each as CSV and PDF. */
async function statements(services: Wiring, clock: ReturnType<typeof fixedClock>, vendors: DemoVendor[], out: string) {
  const written: string[] = [];
  for (const [month, until] of [
    ['07', '2026-07-31'],
    ['08', '2026-08-31'],
    ['09', '2026-09-30'],
  ] as const) {
    clock.set(new Date(`${until}T23:30:00Z`));
    for (const v of vendors) {
      for (const s of await services.payouts.create(v.vendor.id, 'sandbox', until)) {
        if (month !== '09') await services.payouts.markPaid(s.id, `SEPA-2026${month}-${s.number}-${s.currency}`);
        const { statement, lines, vendorName } = await services.payouts.lines(s.id);
        const name = `statement-${short(v)}-${statement.number}-${statement.currency}`;
        writeFileSync(join(out, `${name}.csv`), statementCsv(statement, lines));
        writeFileSync(
          join(out, `${name}.pdf`),
          await renderStatementPdf(statement, lines, { vendor: vendorName, platform: 'demo.opentill.test' }),
        );
        written.push(
          `${name}.csv and .pdf: ${plural(statement.entryCount, 'entry', 'entries')}, to pay ${money(statement.payableMinor, statement.currency)}`,
        );
      }
    }
  }
  for (const v of vendors) {
    const paid = (await services.payouts.list(v.vendor.id, 'sandbox')).filter((s) => s.paid).length;
    const balances = await services.payouts.balances(v.vendor.id, 'sandbox');
    written.push(
      `${v.vendor.name}: ${paid} statements paid; still owed ${balances.map((b) => money(b.balanceMinor, b.currency)).join(', ') || 'nothing'}`,
    );
  }
  return written;
}

/** The quarter's returns of each vendor, selling for itself: one CSV per scheme, and all of them together. */
async function returns(services: Wiring, vendors: DemoVendor[], out: string) {
  const ecb = { ...services.rates, date: '2026-09-30' };
  const written: string[] = [];
  for (const v of vendors)
    for (const scheme of [...TAX_SCHEMES, 'all'] as const) {
      const { period, rows } = await services.taxReturns.report({
        period: QUARTER,
        scheme,
        environment: 'sandbox',
        vendorId: v.vendor.id,
        rates: [ecb],
      });
      const name = `tax-${QUARTER}-${short(v)}-${scheme}.csv`;
      writeFileSync(join(out, name), taxReportCsv(period, rows));
      written.push(`${name}: ${plural(rows.length, 'row')}`);
    }
  return written;
}

/**
 * The books add up, or the demo fails: per vendor and currency, the statements paid plus the balance is
 * the income in the ledger; and the returns' tax is the ledger's tax of the quarter.
 */
async function check(services: Wiring, vendors: DemoVendor[]) {
  const db = services.database.kysely;
  for (const v of vendors) {
    const ledger = await db
      .selectFrom('ledger_entries')
      .select(['income_currency', (eb) => eb.fn.sum<number>('income_minor').as('income')])
      .where('vendor_id', '=', v.vendor.id)
      .groupBy('income_currency')
      .execute();
    const statements = await services.payouts.list(v.vendor.id, 'sandbox');
    const balances = await services.payouts.balances(v.vendor.id, 'sandbox');
    for (const { income_currency: currency, income } of ledger) {
      const paid = statements.filter((s) => s.currency === currency).reduce((a, s) => a + s.payableMinor, 0);
      const owed = balances.find((b) => b.currency === currency)?.balanceMinor ?? 0;
      if (paid + owed !== Number(income))
        throw new Error(
          `${v.vendor.name} ${currency}: statements ${paid} + balance ${owed} is not the income ${income}`,
        );
    }
    const { rows } = await services.taxReturns.report({
      period: QUARTER,
      scheme: 'all',
      environment: 'sandbox',
      vendorId: v.vendor.id,
      rates: [{ ...services.rates, date: '2026-09-30' }],
    });
    const tax = await db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('tax_minor').as('tax'))
      .where('vendor_id', '=', v.vendor.id)
      .executeTakeFirstOrThrow();
    if (rows.reduce((a, r) => a + r.taxMinor, 0) !== Number(tax.tax))
      throw new Error(`${v.vendor.name}: the returns' tax is not the ledger's ${tax.tax}`);
  }
}

await main();
