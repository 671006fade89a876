import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const clock = fixedClock(new Date('2030-01-10T09:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`refund and coupon boundaries (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    test('a refunded subscription is refused a second refund: the earlier period it paid stays paid', async () => {
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' } as never);
      const id = await v.buy(product.id);
      clock.advance(32 * 86_400_000);
      await t.services.billing.runDue();
      const renewed = await v.api(`/v1/transaction/${id}`);
      assert.equal(renewed.json.entries.filter((e: { type: string }) => e.type === 'SUBSCRIPTION_PAYMENT').length, 2);

      assert.equal((await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' })).status, 200);
      const again = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(again.status, 400, again.text);
      assert.equal(again.json.error, 'INVALID_STATE');
      const after = await v.api(`/v1/transaction/${id}`);
      assert.equal(after.json.entries.filter((e: { type: string }) => e.type === 'SUBSCRIPTION_REFUND').length, 1);
    });

    test('a coupon is accepted until the moment it expires, and refused from that moment on', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const expiresAt = new Date(clock.now().getTime() + 3_600_000);
      await t.services.coupons.create(v.scope(), {
        productId: product.id,
        code: 'LASTHOUR',
        percentOff: 10,
        expiresAt: expiresAt.toISOString(),
      });
      clock.set(new Date(expiresAt.getTime() - 1));
      assert.equal((await t.services.coupons.redeemable(v.scope(), product.id, 'lasthour')).code, 'LASTHOUR');
      clock.set(expiresAt);
      await assert.rejects(t.services.coupons.redeemable(v.scope(), product.id, 'lasthour'), /has expired/);
    });
  });
}
