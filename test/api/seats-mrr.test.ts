import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storeKinds, useTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * The dashboard's MRR counts a subscription's seats at its tier's price, as its renewal charges them
 * (docs/decisions.md §39, §19): $10 a seat, $8 from 10 seats.
 */
for (const kind of await storeKinds()) {
  describe(`MRR per seat (${kind})`, () => {
    let t: TestApp;
    useTestApp(kind, {}, (app) => (t = app));

    const tiers = (value: number) => [{ fromQuantity: 10, prices: [{ currency: 'USD', value }] }];

    test('each subscription counts its seats at the tier they fall in, and follows a tier the vendor lowers', async () => {
      const v = await t.newVendor('Per seat MRR');
      const product = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
        seats: { minQuantity: 1, maxQuantity: 20, tiers: tiers(8) },
      });
      const yearly = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'YEARLY',
        prices: [{ currency: 'USD', value: 120 }],
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
      const mrr = async () => (await t.services.dashboard.overview(v.scope(), 'day')).mrr.byCurrency;
      await v.buy(product.id, { email: 'five@example.com', quantity: 5, country: 'HK', currency: 'USD' });
      await v.buy(product.id, { email: 'nine@example.com', quantity: 9, country: 'HK', currency: 'USD' });
      await v.buy(product.id, { email: 'ten@example.com', quantity: 10, country: 'HK', currency: 'USD' });
      await v.buy(product.id, { email: 'twelve@example.com', quantity: 12, country: 'HK', currency: 'USD' });
      await v.buy(yearly.id, { email: 'year@example.com', quantity: 3, country: 'HK', currency: 'USD' });
      // 5 × $10 + 9 × $10 + 10 × $8 + 12 × $8 + 3 × $120 / 12 = $50 + $90 + $80 + $96 + $30.
      assert.deepEqual(await mrr(), { USD: 34_600 });
      const lowered = await v.api(`/v1/products/${product.id}`, {
        body: { seats: { minQuantity: 1, maxQuantity: 20, tiers: tiers(7) } },
      });
      assert.equal(lowered.status, 200, lowered.text);
      // The 10+ tier now $7: 10 × $7 + 12 × $7 in place of $80 + $96.
      assert.deepEqual(await mrr(), { USD: 34_600 - 17_600 + 15_400 });
      const overview = await t.services.dashboard.overview(v.scope(), 'day');
      assert.equal(overview.activeSubscriptions, 5, 'subscriptions are counted, not seats');
    });
  });
}
