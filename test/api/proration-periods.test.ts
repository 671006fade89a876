import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Switching between plans whose periods have different lengths (transactionIdToMigrate): the value
 * left on the old plan is (old price) x (time left / the old period's real length), and it buys
 * (value left / new price) x (the new period's real length, from the switch) of the new plan,
 * rounded down to the millisecond. Months of 28 and 31 days and a year with a leap day are each
 * counted as they are. Worked out by hand below; US customers without a ZIP code pay no tax.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`proration across periods of different lengths (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const at = (iso: string) => clock.set(new Date(iso));
    const plan = (chargeFrequency: string, usd: number) =>
      v.product({ type: 'SUBSCRIPTION', chargeFrequency, prices: [{ currency: 'USD', value: usd }] } as never);
    /** Switches `oldId` to a new plan at `usd` through a customized product and returns the new subscription as listed. */
    const switchTo = async (oldId: string, email: string, chargeFrequency: string, usd: number) => {
      const product = await plan(chargeFrequency, usd);
      const link = await v.api(`/v1/customize-product/${product.id}`, {
        body: { prices: [{ currency: 'USD', value: usd }], transactionIdToMigrate: oldId },
      });
      assert.equal(link.status, 200, link.text);
      const newId = await v.buy(link.json.customizedProductId, { email });
      const listed = (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as any[];
      assert.equal(
        listed.find((tx) => tx.id === oldId)?.transactionStatus,
        'SUBSCRIPTION_STATUS_CANCELLED',
        'the old plan ended',
      );
      const fresh = listed.find((tx) => tx.id === newId);
      assert.equal(fresh.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.deepEqual((await v.api(`/v1/transaction/${newId}`)).json.entries, [], 'nothing charged at the switch');
      return fresh;
    };

    test('yearly $120 to monthly $30 halfway through a year with a leap day: 59 days 16:07:52.131 of the monthly plan', async () => {
      at('2031-03-01T00:00:00.000Z');
      const oldId = await v.buy((await plan('YEARLY', 120)).id, { email: 'yearly-down@example.com' });
      at('2031-09-01T00:00:00.000Z');
      const fresh = await switchTo(oldId, 'yearly-down@example.com', 'MONTHLY', 30);
      // Paid year: 1 March 2031 to 1 March 2032, 366 days (29 February 2032 is in it). Left on
      // 1 September: 182 days (30+31+30+31+31+29), worth 120 x 182/366 = $59.67. The month from
      // 1 September has 30 days at $30, so the value buys 59.67/30 x 30 days:
      // 12000 x 182 x 30 x 86,400,000 / (366 x 3000) ms = 5,155,672,131.15 -> 5,155,672,131 ms
      // = 59 days 16 h 7 min 52.131 s after 1 September 00:00 (with 365 days it would be 59.84 days).
      assert.equal(fresh.nextCharge, '2031-10-30T16:07:52.131Z');
      assert.equal(Date.parse(fresh.nextCharge) - Date.parse('2031-09-01T00:00:00.000Z'), 5_155_672_131);
    });

    test('weekly $7 to monthly $20 in February: 5.6 days, then billed monthly from the first charge', async () => {
      at('2030-02-01T00:00:00.000Z');
      const oldId = await v.buy((await plan('WEEKLY', 7)).id, { email: 'weekly-up@example.com' });
      at('2030-02-04T00:00:00.000Z');
      const fresh = await switchTo(oldId, 'weekly-up@example.com', 'MONTHLY', 20);
      // Paid week: 1 to 8 February; left on the 4th: 4 of 7 days of $7 = $4. The month from
      // 4 February 2030 to 4 March has 28 days at $20, so $4 buys 4/20 x 28 = 5.6 days
      // (700 x 4 x 28 / (7 x 2000) days): 5 days 14 h 24 min, to 9 February 14:24.
      // A 30-day month would have given 6 days, a 31-day one 6.2.
      assert.equal(fresh.nextCharge, '2030-02-09T14:24:00.000Z');

      at('2030-02-09T14:24:00.000Z');
      assert.equal((await t.services.billing.runDue({ sandboxVendorId: v.vendor.id })).renewed, 1);
      const charged = (await v.api(`/v1/transaction/${fresh.id}`)).json;
      assert.deepEqual(
        charged.entries.map((e: { type: string; amountTotal: string }) => `${e.type} ${e.amountTotal}`),
        ['SUBSCRIPTION_PAYMENT 20.00'],
      );
      const listed = ((await v.api('/v1/transactions/weekly-up%40example.com')).json as any[]).find(
        (tx) => tx.id === fresh.id,
      );
      assert.equal(listed.lastCharge, '2030-02-09T14:24:00.000Z');
      assert.equal(listed.nextCharge, '2030-03-09T14:24:00.000Z', 'a calendar month after the first charge');
    });

    test('monthly $31 in a 31-day month to weekly $14: 10.5 days of the weekly plan', async () => {
      at('2030-03-01T00:00:00.000Z');
      const oldId = await v.buy((await plan('MONTHLY', 31)).id, { email: 'monthly-to-weekly@example.com' });
      at('2030-03-11T00:00:00.000Z');
      const fresh = await switchTo(oldId, 'monthly-to-weekly@example.com', 'WEEKLY', 14);
      // Paid month: 1 March to 1 April, 31 days; left on the 11th: 21 days of $31 = $21. A week
      // at $14 is 7 days, so $21 buys 21/14 x 7 = 10.5 days (3100 x 21 x 7 / (31 x 1400) days):
      // 21 March 12:00. A 30-day month would have left 20/30 of $31 = $20.67, 10.33 days.
      assert.equal(fresh.nextCharge, '2030-03-21T12:00:00.000Z');
      assert.equal(Date.parse(fresh.nextCharge) - Date.parse('2030-03-11T00:00:00.000Z'), 10.5 * DAY);
    });
  });
}
