import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const DAY_SECONDS = 86_400;

for (const kind of await storeKinds()) {
  describe(`a moved sandbox clock and other vendors' offers (${kind})`, () => {
    const clock = fixedClock(new Date('2030-06-01T08:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    test("one vendor moving its sandbox a month ahead expires its own offers, never another vendor's", async () => {
      const other = await t.newVendor('Time Traveller');
      const offer = async (vendor: TestVendor) => {
        const product = await vendor.product({ type: 'ONETIME' });
        const res = await vendor.api(`/v1/customize-product/${product.id}`, {
          body: {
            prices: [{ currency: 'USD', value: 15 }],
            expiresIn: 10 * DAY_SECONDS,
            userMail: 'offer@example.com',
          },
        });
        assert.equal(res.status, 200, res.text);
        return res.json.customizedProductId as string;
      };
      const mine = await offer(v);
      const theirs = await offer(other);
      const moved = await other.api('/v1/clock/advance', { body: { seconds: 30 * DAY_SECONDS } });
      assert.equal(moved.status, 200, moved.text);
      await t.services.billing.runDue({ sandboxVendorId: other.vendor.id });

      const store = t.services.store;
      // An expired offer keeps no personal data.
      assert.equal((await store.customizedProducts.find(other.scope(), theirs))?.userMail ?? null, null);
      const kept = await store.customizedProducts.find(v.scope(), mine);
      assert.equal(kept?.userMail, 'offer@example.com');
    });
  });
}
