import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { TaxReportRow } from '../../src/domain/books/index.ts';
import { parseExchangeRateDays } from '../../src/domain/money/index.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The tax returns of a period (issue 34, docs/decisions.md §23) from a French seller's sales on both
 * stores: EU OSS per member state and rate in euros at the ECB rate of the period's last day, the
 * seller's own country apart, reverse-charge sales apart per buyer VAT ID; UK, US per state, Canada
 * per province, Australia; a refund in the quarter it was made. Each report's tax is the ledger's.
 */
const HISTORY = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <Cube>
    <Cube time="2031-10-01"><Cube currency="USD" rate="1.5000"/><Cube currency="GBP" rate="0.9000"/></Cube>
    <Cube time="2031-09-30"><Cube currency="USD" rate="1.2500"/><Cube currency="GBP" rate="0.8000"/></Cube>
    <Cube time="2031-09-29"><Cube currency="USD" rate="1.1000"/><Cube currency="GBP" rate="0.7000"/></Cube>
  </Cube>
</gesmes:Envelope>`;

for (const kind of await storeKinds()) {
  describe(`tax returns (${kind})`, () => {
    const clock = fixedClock(new Date('2031-08-15T10:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));
    const rates = parseExchangeRateDays(HISTORY);

    async function sell(usd: number, buyer: Record<string, string>) {
      clock.advance(1000);
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: usd }] });
      return v.buy(product.id, { email: 'buyer@example.com', currency: 'USD', ...buyer });
    }
    const report = (period: string, scheme: 'all' | 'oss' | 'us' = 'all') =>
      t.services.taxReturns.report({ period, scheme, environment: 'sandbox', vendorId: v.vendor.id, rates });
    const ledgerTax = async (from: string, to: string) => {
      let tax = 0;
      for (const tr of await t.services.transactions.listByEmail(v.scope(), 'buyer@example.com'))
        for (const e of (await t.services.transactions.get(v.scope(), tr.id)).entries)
          if (e.createdAt >= from && e.createdAt < to) tax += e.taxMinor;
      return tax;
    };
    const find = (rows: TaxReportRow[], section: string, jurisdiction: string) =>
      rows.filter((r) => r.section === section && r.jurisdiction === jurisdiction);

    test('a quarter: OSS in euros at the last day, domestic and reverse charge apart, the national returns, the tax all the ledger’s', async () => {
      await t.services.catalog.updateVendorSettings(v.vendor.id, { country: 'FR' });
      await sell(100, { country: 'DE' }); // 19% German VAT: OSS
      await sell(100, { country: 'DE' });
      await sell(50, { country: 'FR' }); // the seller's own country: domestic
      await sell(200, {
        country: 'DE',
        businessName: 'Kunde GmbH',
        vatId: 'DE136695976',
        buyerAddress: 'Str. 1, Berlin',
      });
      await sell(100, { country: 'GB' });
      await sell(100, { country: 'US', region: 'CA' });
      await sell(100, { country: 'CA', region: 'ON' });
      await sell(100, { country: 'AU' });
      await sell(100, { country: 'JP' });
      const { period, rows } = await report('2031-Q3');
      assert.deepEqual(
        [period.from, period.to, period.lastDay],
        ['2031-07-01T00:00:00.000Z', '2031-10-01T00:00:00.000Z', '2031-09-30'],
      );

      const [oss] = find(rows, 'oss', 'DE');
      assert.deepEqual(
        [oss?.scheme, oss?.taxRate, oss?.currency, oss?.netMinor, oss?.taxMinor, oss?.entries],
        ['oss', '0.19', 'USD', 20_000, 3800, 2],
      );
      // At 1.25 USD a euro on 30 September (not 1.50 on 1 October, nor 1.10 on the 29th): 160.00 and 30.40 EUR.
      assert.deepEqual(oss?.eur, { netMinor: 16_000, taxMinor: 3040, ratesDate: '2031-09-30' });
      const [domestic] = find(rows, 'domestic', 'FR');
      assert.deepEqual([domestic?.taxRate, domestic?.netMinor, domestic?.taxMinor], ['0.2', 5000, 1000]);
      const [reverse] = find(rows, 'reverse-charge', 'DE');
      assert.deepEqual(
        [reverse?.buyerVatId, reverse?.netMinor, reverse?.taxMinor, reverse?.eur?.netMinor],
        ['DE136695976', 20_000, 0, 16_000],
      );
      assert.equal(find(rows, 'sales', 'GB')[0]?.scheme, 'uk');
      assert.equal(find(rows, 'sales', 'US-CA')[0]?.scheme, 'us');
      assert.equal(find(rows, 'sales', 'CA-ON')[0]?.scheme, 'ca');
      assert.equal(find(rows, 'sales', 'AU')[0]?.scheme, 'au');
      assert.equal(find(rows, 'sales', 'JP')[0]?.scheme, 'other');
      assert.equal(
        rows.reduce((a, r) => a + r.taxMinor, 0),
        await ledgerTax(period.from, period.to),
        'every return together holds the ledger’s tax of the quarter',
      );
      const ossOnly = (await report('2031-Q3', 'oss')).rows;
      assert.deepEqual([...new Set(ossOnly.map((r) => r.section))].sort(), ['domestic', 'oss', 'reverse-charge']);
      assert.equal((await report('2031-Q3', 'us')).rows.length, 1);
    });

    test('a refund is in the quarter it was made, negative; a period without sales is empty; bad periods and missing rates are refused', async () => {
      const [sale] = (await t.services.transactions.listByEmail(v.scope(), 'buyer@example.com')).filter(
        (x) => x.country === 'DE' && !x.reverseCharge,
      );
      clock.set(new Date('2031-11-02T09:00:00.000Z'));
      assert.equal((await t.services.refunds.refund(v.scope(), sale!.id, {})).status, 'REFUNDED');
      const q4 = await t.services.taxReturns.report({
        period: '2031-Q4',
        scheme: 'oss',
        environment: 'sandbox',
        vendorId: v.vendor.id,
        rates: parseExchangeRateDays(HISTORY.replace('2031-10-01', '2031-12-31')),
      });
      assert.deepEqual(
        q4.rows.map((r) => [r.section, r.jurisdiction, r.netMinor, r.taxMinor]),
        [['oss', 'DE', -10_000, -1900]],
      );
      assert.equal(
        (await report('2031-Q3')).rows.find((r) => r.section === 'oss')?.netMinor,
        20_000,
        'Q3 keeps the sale',
      );
      assert.equal(
        q4.rows.reduce((a, r) => a + r.taxMinor, 0),
        await ledgerTax(q4.period.from, q4.period.to),
      );
      assert.equal((await report('2031-08', 'us')).rows.length, 1, 'August: the month of the sales');
      assert.deepEqual((await report('2031-07')).rows, [], 'July: none');
      assert.deepEqual((await report('2030')).rows, []);
      for (const period of ['2031-Q5', '2031-13', 'Q3', '31-Q3'])
        await assert.rejects(report(period), { code: 'INVALID_INPUT' }, period);
      await assert.rejects(
        report('2031-Q4'),
        /No ECB reference rates for 2031-12-31/,
        'Q4 needs the rates of 31 December',
      );
    });
  });
}
