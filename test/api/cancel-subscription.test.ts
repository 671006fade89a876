import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const clock = fixedClock(new Date('2030-05-01T12:00:00.000Z'));
const tick = () => clock.advance(1000);

for (const kind of await storeKinds()) {
  describe(`cancel-subscription (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const cancel = (id: string) => v.api(`/v1/cancel-subscription/${id}`, { method: 'POST' });
    const read = async (id: string) => (await v.api(`/v1/transaction/${id}`)).json;
    const feedElement = async (id: string) => {
      const feed = await v.api('/v1/changed-transactions');
      assert.equal(feed.status, 200);
      return feed.json.find((e: { id: string }) => e.id === id);
    };

    test('an active subscription becomes CANCELLED_PENDING, cancelled by VENDOR, with CHANGED_STATUS_CANCELLED', async () => {
      tick();
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' });
      const id = await v.buy(product.id, { email: 'cancel-active@example.com' });
      const before = (await v.api('/v1/transactions/cancel-active@example.com')).json[0];
      tick();
      const res = await cancel(id);
      assert.equal(res.status, 200);
      assert.equal(res.json.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      const listed = (await v.api('/v1/transactions/cancel-active@example.com')).json[0];
      assert.equal(listed.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal(listed.whoCanceled, 'VENDOR');
      // Still paid up to the end of the period: the payment date stays, nothing is refunded.
      assert.equal(listed.lastCharge, before.lastCharge);
      assert.deepEqual(
        (await read(id)).entries.map((e: { type: string }) => e.type),
        ['SUBSCRIPTION_PAYMENT'],
      );
      const element = await feedElement(id);
      assert.equal(element.changeStatus, 'CHANGED_STATUS_CANCELLED');
      assert.equal(element.changedStatus, 'CHANGED_STATUS_CANCELLED');
      assert.equal(element.whoCanceled, 'VENDOR');
    });

    test('a subscription in trial is cancelled at once: SUBSCRIPTION_STATUS_CANCELLED, no next charge', async () => {
      tick();
      const product = await v.product({ type: 'SUBSCRIPTION', trialDays: 7 });
      const id = await v.buy(product.id, { email: 'cancel-trial@example.com' });
      assert.equal((await read(id)).transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL');
      tick();
      const res = await cancel(id);
      assert.equal(res.status, 200);
      assert.equal(res.json.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      const listed = (await v.api('/v1/transactions/cancel-trial@example.com')).json[0];
      assert.equal(listed.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(listed.whoCanceled, 'VENDOR');
      assert.equal(listed.nextCharge, null);
      assert.equal((await feedElement(id)).changeStatus, 'CHANGED_STATUS_CANCELLED');
    });

    test('cancelling an already cancelled subscription answers 200 and changes nothing', async () => {
      tick();
      const product = await v.product({ type: 'SUBSCRIPTION' });
      const id = await v.buy(product.id, { email: 'cancel-twice@example.com' });
      assert.equal((await cancel(id)).status, 200);
      // Processing the first cancellation empties the feed for this transaction.
      await v.api('/v1/changed-transactions');
      assert.equal((await v.api(`/v1/changed-transactions/${id}`, { method: 'POST' })).status, 200);
      assert.equal(await feedElement(id), undefined);
      const before = (await v.api('/v1/transactions/cancel-twice@example.com')).json;
      tick();
      const again = await cancel(id);
      assert.equal(again.status, 200);
      assert.equal(again.json.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal(again.json.changed, false);
      assert.deepEqual((await v.api('/v1/transactions/cancel-twice@example.com')).json, before);
      assert.equal(await feedElement(id), undefined, 'a no-op cancel does not re-enter the feed');
    });

    test('a one-time payment cannot be cancelled: 400 naming its state, nothing changes', async () => {
      tick();
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      const res = await cancel(id);
      assert.equal(res.status, 400);
      assert.equal(res.json.error, 'INVALID_STATE');
      assert.match(res.json.message, /ONE_TIME_PAYMENT_STATUS_PAID/);
      const after = await read(id);
      assert.equal(after.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(after.whoCanceled, null);
    });

    test('cancelling a vaulted method deactivates it with CHANGED_STATUS_VAULTED_DEACTIVATION', async () => {
      tick();
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id);
      tick();
      const res = await cancel(id);
      assert.equal(res.status, 200);
      assert.equal(res.json.transactionStatus, 'VAULTED_STATUS_INACTIVE');
      const after = await read(id);
      assert.equal(after.transactionStatus, 'VAULTED_STATUS_INACTIVE');
      assert.equal(after.whoCanceled, 'VENDOR');
      assert.equal((await feedElement(id)).changeStatus, 'CHANGED_STATUS_VAULTED_DEACTIVATION');
    });

    test('charging an inactive vaulted method answers 400 and records no payment', async () => {
      tick();
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id);
      assert.equal((await cancel(id)).status, 200);
      const res = await v.api(`/v1/charge-vaulted/${id}`, { body: { prices: [{ currency: 'USD', value: 10 }] } });
      assert.equal(res.status, 400);
      assert.equal(res.json.error, 'INVALID_STATE');
      assert.match(res.json.message, /VAULTED_STATUS_INACTIVE/);
      assert.deepEqual((await read(id)).entries, []);
    });

    test('an unknown or foreign transaction id is 404', async () => {
      const other = await t.newVendor('other');
      const product = await other.product({ type: 'SUBSCRIPTION' });
      const foreign = await other.buy(product.id);
      assert.equal((await cancel(foreign)).status, 404);
      assert.equal((await cancel('TC-TR_UNKNOWN')).status, 404);
      assert.equal(
        (await other.api(`/v1/transaction/${foreign}`)).json.transactionStatus,
        'SUBSCRIPTION_STATUS_ACTIVE',
      );
    });
  });
}
