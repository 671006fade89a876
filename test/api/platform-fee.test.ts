import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { loadExchangeRates } from '../../src/files/exchange-rates-file.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The platform's fee (issue 34, docs/decisions.md §21): PLATFORM_FEE, or a vendor's own, taken on every
 * payment as it is booked (a purchase, a renewal, a charge of a stored card), written to the entry's
 * service fee and out of the vendor's income, and given back in proportion by a refund. A fee changed
 * later changes no entry booked before it.
 */
/** 0.50 USD in euro cents at the bundled table (1 EUR = 1.16 USD): 43. */
const usdPerEuro = loadExchangeRates().perEuro.get('USD')!;
const HALF_DOLLAR_IN_EUR_CENTS = Math.round(50 / (Number(usdPerEuro.units) / 10 ** usdPerEuro.scale));

type Entry = { type: string; amountTotal: string; taxAmount: string; income: string };
type RefundRecord = { TCFee: number; vendorIncome: number; amountTotal: number; taxAmount: number };
const cents = (text: string | number) => Math.round(Number(text) * 100);

for (const kind of await storeKinds()) {
  describe(`the platform fee (${kind})`, () => {
    const clock = fixedClock(new Date('2030-06-03T09:00:00.000Z'));
    const tick = () => clock.advance(1000);
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, env: { PLATFORM_FEE: '5%+0.50USD' } }, (app, vendor) => ((t = app), (v = vendor)));

    const entries = async (id: string) => ((await v.api(`/v1/transaction/${id}`)).json as { entries: Entry[] }).entries;
    const serviceFees = async (id: string) =>
      (await t.services.transactions.get(v.scope(), id)).entries.map((e) => e.serviceFeeMinor);
    async function euroPurchase(email: string, type: 'ONETIME' | 'SUBSCRIPTION' = 'ONETIME') {
      tick();
      const product = await v.product({
        type,
        ...(type === 'SUBSCRIPTION' ? { chargeFrequency: 'MONTHLY' } : {}),
        prices: [
          { currency: 'USD', value: 45 },
          { currency: 'EUR', value: 40 },
        ],
      });
      return v.buy(product.id, { email, country: 'DE' });
    }

    test('a purchase pays 5% of its net and 0.50 USD converted at the ledger rate, and the vendor keeps the rest of the net', async () => {
      const id = await euroPurchase('fee@example.com');
      const fee = 200 + HALF_DOLLAR_IN_EUR_CENTS; // 5% of 40.00 EUR, and 0.50 USD in EUR
      assert.deepEqual(await serviceFees(id), [fee]);
      const [entry] = await entries(id);
      assert.equal(cents(entry!.amountTotal), 4760, 'the buyer pays what the checkout showed: 40.00 + 19% VAT');
      assert.equal(cents(entry!.taxAmount), 760);
      assert.equal(
        cents(entry!.income),
        4000 - fee,
        'income: the net less the platform fee (the sandbox takes no processor fee)',
      );
    });

    test('a refund in parts gives the fee back in proportion, and all the parts give back exactly the fee', async () => {
      const id = await euroPurchase('refunded@example.com');
      const fee = 200 + HALF_DOLLAR_IN_EUR_CENTS;
      tick();
      const part = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST', body: { amount: 11.9 } });
      assert.equal(part.status, 200, part.text);
      const [first] = part.json as RefundRecord[];
      // 11.90 of 47.60 is a quarter: a quarter of the fee, rounded half-up.
      assert.equal(cents(first!.TCFee), Math.round(fee / 4));
      assert.equal(cents(first!.vendorIncome), Math.round((4000 - fee) / 4));
      tick();
      const rest = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(rest.status, 200, rest.text);
      const records = rest.json as RefundRecord[];
      const last = records[records.length - 1]!;
      assert.equal(cents(first!.TCFee) + cents(last.TCFee), fee, 'the parts give back the whole fee');
      assert.equal(cents(first!.vendorIncome) + cents(last.vendorIncome), 4000 - fee);
      assert.equal(
        (await serviceFees(id)).reduce((a, b) => a + b, 0),
        0,
        'the ledger holds no fee for a payment taken back in full',
      );
    });

    test("a vendor's own fee applies from then on: renewals and stored-card charges take it, entries booked before keep theirs", async () => {
      const id = await euroPurchase('renews@example.com', 'SUBSCRIPTION');
      const before = 200 + HALF_DOLLAR_IN_EUR_CENTS;
      const own = await t.services.catalog.setPlatformFee(v.vendor.id, ' 3% ');
      assert.deepEqual([own.fee, own.own], ['3%', true]);
      clock.set(new Date('2030-07-04T09:00:00.000Z'));
      const report = await t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
      assert.equal(report.renewed, 1, JSON.stringify(report));
      assert.deepEqual(
        await serviceFees(id),
        [before, 120],
        'the renewal: 3% of 40.00 EUR; the first payment unchanged',
      );

      tick();
      const vault = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 5 }] });
      const vaulted = await v.buy(vault.id, { email: 'vault@example.com' });
      tick();
      const charged = await v.api(`/v1/charge-vaulted/${vaulted}`, {
        body: { prices: [{ currency: 'USD', value: 12.5 }] },
      });
      assert.equal(charged.status, 200, charged.text);
      assert.deepEqual(await serviceFees(vaulted), [15, 38], '3% of 5.00 USD, then of 12.50 USD (0.375: 0.38)');

      const back = await t.services.catalog.setPlatformFee(v.vendor.id, null);
      assert.deepEqual([back.fee, back.own], ['5%+0.50USD', false]);
      assert.deepEqual(await serviceFees(id), [before, 120], 'changing the fee changes no entry');
    });

    test("a vendor's fee is checked as PLATFORM_FEE is, and an unknown vendor is NOT_FOUND", async () => {
      await assert.rejects(t.services.catalog.setPlatformFee(v.vendor.id, '5'), { code: 'INVALID_INPUT' });
      await assert.rejects(t.services.catalog.setPlatformFee(v.vendor.id, '1%+1NGN'), /does not list/);
      await assert.rejects(t.services.catalog.setPlatformFee('TC-VE_NOBODY', '1%'), { code: 'NOT_FOUND' });
      assert.equal((await t.services.catalog.requireVendor(v.vendor.id)).platformFee, null, 'nothing was set');
    });
  });
}

describe('PLATFORM_FEE at start', () => {
  test('a fee opentill cannot take stops the services from starting, naming the setting', () => {
    const env = { OPENTILL_SECRET: 'platform-fee-secret-0123456789-0123456789', SQLITE_FILE: ':memory:' };
    for (const fee of ['five percent', '5%+0.50NGN'])
      assert.throws(() => createServices(loadConfig({ ...env, PLATFORM_FEE: fee })), /^Error: PLATFORM_FEE: /);
  });
});
