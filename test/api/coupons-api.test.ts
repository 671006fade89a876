import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

// /v1/coupons (opentill's own, docs/decisions.md §38): a vendor's app manages lasting coupons as the
// panel and the CLI do, within its own vendor and environment.
const clock = fixedClock(new Date('2030-07-01T09:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`the coupon API (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const plan = () =>
      v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: 10 }] });

    test('a coupon made over the API lasts its periods, counts its redemptions and is revoked once', async () => {
      const product = await plan();
      const made = await v.api('/v1/coupons', {
        body: {
          productId: product.id,
          code: 'api20',
          percentOff: 20,
          duration: 'repeating',
          durationPeriods: 3,
          maxRedemptions: 2,
          maxPerCustomer: 1,
          frequencies: ['MONTHLY'],
          startsAt: '2030-06-30T00:00:00Z',
        },
      });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(
        { ...made.json, id: undefined, createDate: undefined },
        {
          id: undefined,
          createDate: undefined,
          productId: product.id,
          code: 'API20',
          percentOff: '20',
          amountsOff: [],
          duration: 'repeating',
          durationPeriods: 3,
          maxRedemptions: 2,
          redemptions: 0,
          maxPerCustomer: 1,
          otherProductIds: [],
          frequencies: ['MONTHLY'],
          firstPurchaseOnly: false,
          startsAt: '2030-06-30T00:00:00.000Z',
          expiresAt: null,
          revokedAt: null,
        },
      );
      const id = made.json.id as string;
      const bought = await v.buy(product.id, { coupon: 'API20', country: 'HK', currency: 'USD' });
      assert.equal((await t.services.store.transactions.find(v.scope(), bought))!.netMinor, 800);
      assert.equal((await v.api(`/v1/coupons/${id}`)).json.redemptions, 1);
      const listed = (await v.api('/v1/coupons')).json as { id: string }[];
      assert.ok(listed.some((c) => c.id === id));
      const revoked = await v.api(`/v1/coupons/${id}/revoke`, { method: 'POST' });
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.json.revokedAt, clock.now().toISOString());
      const again = await v.api(`/v1/coupons/${id}/revoke`, { method: 'POST' });
      assert.deepEqual([again.status, again.json.revokedAt], [200, revoked.json.revokedAt], 'a retry changes nothing');
      await assert.rejects(t.services.coupons.redeemable(v.scope(), product.id, 'API20'), /not valid for this product/);
    });

    test('amounts off come back by currency; bad terms and unknown fields are a 400 that makes nothing', async () => {
      const product = await plan();
      const amounts = await v.api('/v1/coupons', {
        body: { productId: product.id, code: 'FIVE', amountsOff: [{ currency: 'usd', value: 5 }], duration: 'forever' },
      });
      assert.equal(amounts.status, 201, amounts.text);
      assert.deepEqual(amounts.json.amountsOff, [{ currency: 'USD', value: 5, valueS: '5.00' }]);
      for (const body of [
        { productId: product.id, code: 'BAD1', percentOff: 20, duration: 'repeating' },
        { productId: product.id, code: 'BAD2', percentOff: 20, duration: 'repeating', durationPeriods: 0 },
        { productId: product.id, code: 'BAD3', percentOff: 101 },
        { productId: product.id, code: 'BAD4', percentOff: 20, maxRedemptions: 0 },
        { productId: product.id, code: 'BAD5', percentOff: 20, frequencies: ['HOURLY'] },
        { productId: product.id, code: 'BAD6', percentOff: 20, lasting: true },
        { productId: product.id, code: 'FIVE', percentOff: 20 },
        { productId: 'TC-PR_nope', code: 'BAD7', percentOff: 20 },
      ]) {
        const res = await v.api('/v1/coupons', { body });
        assert.ok(res.status === 400 || res.status === 404, `${JSON.stringify(body)}: ${res.status} ${res.text}`);
        assert.equal(typeof res.json.error, 'string');
        assert.equal(typeof res.json.message, 'string');
      }
      const made = (await v.api('/v1/coupons')).json as { code: string; productId: string }[];
      assert.deepEqual(
        made.filter((c) => c.productId === product.id).map((c) => c.code),
        ['FIVE'],
      );
    });

    test("another vendor's or environment's coupon is 404 to read or revoke", async () => {
      const product = await plan();
      const mine = (await v.api('/v1/coupons', { body: { productId: product.id, code: 'MINE', percentOff: 10 } })).json;
      const other = await t.newVendor('Other Coupons');
      assert.equal((await other.api(`/v1/coupons/${mine.id}`)).status, 404);
      assert.equal((await other.api(`/v1/coupons/${mine.id}/revoke`, { method: 'POST' })).status, 404);
      assert.deepEqual((await other.api('/v1/coupons')).json, []);
      assert.equal((await v.api(`/v1/coupons/${mine.id}`, { environment: 'production' })).status, 404);
      assert.equal((await v.api(`/v1/coupons/${mine.id}`)).json.revokedAt, null, 'untouched');
    });
  });
}
