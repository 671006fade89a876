/**
 * `npm run bench:billing`: the billing engine renewing BENCH_RENEWALS (default 100,000) due monthly
 * subscriptions, on SQLite and on PostgreSQL, beside the store's raw ceiling measured in the same
 * run on the same database: the same rows written by plain batched SQL, one ledger-entry insert and
 * one transaction update per renewal, 500 renewals per database transaction. The two alternate in
 * BENCH_ROUNDS rounds (default 4) so that a disk or machine slowing down mid-run weighs on both alike.
 * Prints renewals/s of each over all rounds, the ratio (target, issue 15: at least 0.50), each
 * round's ratio, and how long the engine took for all its renewals (issue 15: a million on SQLite in
 * about 60 s, with BENCH_RENEWALS=1000000).
 *
 * The payment network is an in-memory stand-in that answers every charge at once (the edge of the
 * world, whose latency is not the store's); everything else is the engine as `opentill worker` runs it.
 *
 * Environment:
 *   BENCH_RENEWALS=100000   due subscriptions per store
 *   BENCH_ROUNDS=4
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_SMOKE=1           1,000 renewals in 2 rounds (test/bench/bench-smoke.test.ts)
 */
import { sql } from 'kysely';
import { billingService } from '../src/domain/billing/billing.ts';
import { systemClock, vendorClock } from '../src/domain/clock.ts';
import { loadExchangeRates } from '../src/files/exchange-rates-file.ts';
import { FORM_CARD_ENTRY } from '../src/gateways/sandbox-gateway.ts';
import type { PaymentGateway } from '../src/domain/payments/gateway.ts';
import { newId } from '../src/domain/ids.ts';
import { createStore } from '../src/store/index.ts';
import { reserveInvoiceNumbers } from '../src/store/ledger-store.ts';
import type { Database } from '../src/store/database.ts';
import { seedDueSubscriptions, SEEDED_PRICE_MINOR } from '../support/due-subscriptions.ts';
import { freshDatabase } from '../support/databases.ts';
import { NO_PLATFORM_FEE } from '../src/domain/money/index.ts';
import { logMachine, setting, storesToMeasure } from './settings.ts';

const RENEWALS = setting('BENCH_RENEWALS', 100_000, 1_000);
const STORES = storesToMeasure();
const ROUNDS = setting('BENCH_ROUNDS', 4, 2);
const BATCH = 500;
const TARGET = 0.5;

/**
 * Answers every charge at once and, like a provider, the same outcome for the same attempt id. Its
 * references are counted, not random: a CSPRNG call per charge cost the engine a tenth of its run,
 * and the network's cost is not the engine's.
 */
function instantGateway(): PaymentGateway {
  const references = new Map<string, string>();
  let charged = 0;
  return {
    provider: 'BENCH',
    ...FORM_CARD_ENTRY,
    tokenize: async () => ({ status: 'DECLINED', code: 'invalid_card', message: 'not in the bench', permanent: true }),
    async charge(request) {
      let reference = references.get(request.attemptId);
      if (!reference) references.set(request.attemptId, (reference = `bench_${++charged}`));
      return { status: 'SUCCEEDED', reference, feeMinor: 0 };
    },
    refund: async (request) => ({ status: 'SUCCEEDED', reference: `bench_re_${request.refundId}` }),
    async lookupCharge(attemptId) {
      const reference = references.get(attemptId);
      return reference ? { status: 'SUCCEEDED', reference, feeMinor: 0 } : { status: 'NOT_FOUND' };
    },
    lookupRefund: async () => ({ status: 'NOT_FOUND' }),
  };
}

/**
 * Plain batched SQL: per renewal one entry insert and one transaction update, 500 per transaction.
 * The entries carry invoice numbers, as every payment's must (one counter bump per batch), so the
 * ceiling writes the same rows, unique invoice-number index included, as the engine.
 */
async function rawCeiling(
  database: Database,
  vendorId: string,
  rows: { id: string; country: string }[],
  dueAt: string,
  nextAt: string,
): Promise<number> {
  const at = new Date().toISOString();
  const started = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    const part = rows.slice(i, i + BATCH);
    await database.transaction(async (trx) => {
      const firstNumber = await reserveInvoiceNumbers(trx, vendorId, 'sandbox', part.length);
      await trx
        .insertInto('ledger_entries')
        .values(
          part.map((r, n) => ({
            id: newId('entry'),
            invoice_number: firstNumber + n,
            transaction_id: r.id,
            vendor_id: vendorId,
            environment: 'sandbox',
            type: 'SUBSCRIPTION_PAYMENT',
            created_at: at,
            currency: 'USD',
            amount_total_minor: SEEDED_PRICE_MINOR,
            tax_minor: 0,
            net_minor: SEEDED_PRICE_MINOR,
            tax_rate: '0',
            income_minor: SEEDED_PRICE_MINOR,
            income_currency: 'USD',
            affiliate_income_minor: 0,
            service_fee_minor: 0,
            transaction_fee_minor: 0,
            reverses_entry_id: null,
            period_start: dueAt,
            hash_id: newId('hash'),
            external_id: 'raw',
            payment_provider: 'BENCH',
            country: r.country,
            description: null,
            discount_minor: 0,
          })),
        )
        .execute();
      const tuples = part.map((r) => sql`(${r.id}, ${at}, ${nextAt})`);
      await sql`with v(id, last_charge, next_charge) as (values ${sql.join(tuples)})
        update transactions set last_charge = v.last_charge, next_charge = v.next_charge, billing_period = billing_period + 1,
          change_flag = 'CHANGED_STATUS_RENEWED', changed_at = v.last_charge, feed_pending = 1, change_version = change_version + 1
        from v where transactions.id = v.id`.execute(trx);
    });
  }
  return (performance.now() - started) / 1000;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const lines: string[] = [];
logMachine(`opentill billing bench: ${fmt(RENEWALS)} renewals per store, ${ROUNDS} alternating rounds`);
for (const kind of STORES) {
  const store = await freshDatabase(kind);
  try {
    process.stdout.write(`${kind}: seeding 2 x ${fmt(RENEWALS)} subscriptions...\n`);
    // The raw rows are seeded 60 days ahead, so they are not due: the engine's runs bill only its own.
    const raw = await seedDueSubscriptions(store.database, RENEWALS, new Date(Date.now() + 60 * 86_400_000));
    const billed = await seedDueSubscriptions(store.database, RENEWALS);
    const rawRows = await store.database.kysely
      .selectFrom('transactions')
      .select(['id', 'country'])
      .where('vendor_id', '=', raw.vendorId)
      .orderBy('id')
      .execute();
    const gateway = instantGateway();
    const billing = billingService({
      store: createStore(store.database),
      clock: vendorClock(systemClock),
      gateways: { production: gateway, sandbox: gateway },
      rates: loadExchangeRates(),
      platformFee: NO_PLATFORM_FEE,
    });

    const perRound = Math.ceil(RENEWALS / ROUNDS / BATCH) * BATCH;
    let rawSeconds = 0;
    let engineSeconds = 0;
    let renewed = 0;
    const ratios: number[] = [];
    for (let round = 0; round * perRound < RENEWALS; round++) {
      const slice = rawRows.slice(round * perRound, (round + 1) * perRound);
      const r = await rawCeiling(store.database, raw.vendorId, slice, raw.dueAt, raw.nextAt);
      const started = performance.now();
      const report = await billing.runDue({ maxBatches: perRound / BATCH });
      const e = (performance.now() - started) / 1000;
      rawSeconds += r;
      engineSeconds += e;
      renewed += report.renewed;
      ratios.push(report.renewed / e / (slice.length / r));
    }
    const payments = await store.database.kysely
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('vendor_id', '=', billed.vendorId)
      .executeTakeFirstOrThrow();
    if (Number(payments.n) !== RENEWALS || renewed !== RENEWALS)
      throw new Error(`${kind}: expected ${RENEWALS} renewals, got ${renewed} (${payments.n} entries)`);
    const engineRate = renewed / engineSeconds;
    const ceiling = rawRows.length / rawSeconds;
    const line = `${kind.padEnd(8)} engine ${fmt(engineRate).padStart(7)} renewals/s   raw ceiling ${fmt(ceiling).padStart(7)} rows/s   ratio ${(engineRate / ceiling).toFixed(3)} (target >= ${TARGET.toFixed(2)}: ${engineRate / ceiling >= TARGET ? 'met' : 'NOT met'})   rounds ${ratios.map((x) => x.toFixed(2)).join(' ')}   engine ${fmt(renewed)} renewals in ${engineSeconds.toFixed(1)} s`;
    lines.push(line);
    process.stdout.write(line + '\n');
  } finally {
    await store.drop();
  }
}
process.stdout.write(
  `\nbench:billing, ${fmt(RENEWALS)} renewals per store, ${ROUNDS} alternating rounds\n${lines.join('\n')}\n`,
);
