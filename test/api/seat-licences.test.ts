import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, TEST_CARD, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * A seat change keeps the customer's licence key (docs/decisions.md §39): the key, its activations and
 * its instances carry over to the subscription that goes on, whose seats are then its activation limit.
 * A switch to another product is another product's key.
 */
for (const kind of await storeKinds()) {
  describe(`a seat change keeps the licence key (${kind})`, () => {
    const clock = fixedClock(new Date('2031-05-01T00:00:00.000Z'));
    let t: TestApp;
    useTestApp(kind, { clock, env: { LICENCE_KEY_REQUESTS_PER_ADDRESS: '100000' } }, (app) => (t = app));

    const licensed = (w: TestVendor) =>
      w.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        issuesLicences: true,
        prices: [{ currency: 'USD', value: 10 }],
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
    const path = (key: string, action = '') => `/v1/licences/${encodeURIComponent(key)}${action && `/${action}`}`;
    const activate = (w: TestVendor, key: string, name: string) =>
      w.api(path(key, 'activate'), { method: 'POST', body: { instanceName: name } });
    const licence = async (w: TestVendor, key: string) => (await w.api(path(key))).json;
    const change = async (w: TestVendor, id: string, quantity: number) => {
      const res = await w.api(`/v1/update-quantity/${id}`, { body: { quantity } });
      assert.equal(res.status, 200, res.text);
      return res.json.id as string;
    };
    const bought = async (w: TestVendor, productId: string, quantity: number) => {
      const result = await t.services.purchases.purchase(w.scope(), {
        productId,
        email: 'team@example.com',
        country: 'US',
        card: TEST_CARD,
        quantity,
      });
      assert.ok(result.status === 'PAID' && result.licence);
      return { id: result.transaction.id, key: result.licence };
    };

    test('5 → 8 seats: the same key, its activations kept, limit 8; 8 → 6 at the period end: limit 6', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const w = await t.newVendor('Seat keys');
      const product = await licensed(w);
      const { id: five, key } = await bought(w, product.id, 5);
      for (const name of ['laptop', 'desktop', 'server']) assert.equal((await activate(w, key, name)).status, 200);
      clock.set(new Date('2031-05-11T00:00:00.000Z'));
      const eight = await change(w, five, 8);
      const raised = await licence(w, key);
      assert.deepEqual(
        [raised.status, raised.transactionId, raised.activationsUsed, raised.activationLimit],
        ['ACTIVE', eight, 3, 8],
      );
      assert.deepEqual(
        raised.instances.map((i: { instanceName: string }) => i.instanceName),
        ['laptop', 'desktop', 'server'],
      );
      assert.equal(await t.services.store.licences.keyOf(w.scope(), eight), key, 'no other key was issued');
      assert.equal(await t.services.store.licences.keyOf(w.scope(), five), undefined);
      const checked = await w.api(`/v1/check-licence/${product.id}/${key}`);
      assert.deepEqual([checked.json.status, checked.json.activations], ['ACTIVE', { used: 3, limit: 8 }]);
      for (let i = 4; i <= 8; i++) assert.equal((await activate(w, key, `seat-${i}`)).status, 200);
      assert.equal((await activate(w, key, 'seat-9')).status, 400, 'the limit is the 8 seats');
      // Charged for the 8 seats, they may change again: fewer, from the end of the paid period.
      clock.set(new Date('2031-05-24T03:00:00.000Z'));
      assert.equal((await t.services.billing.runDue({ sandboxVendorId: w.vendor.id })).renewed, 1);
      const six = await change(w, eight, 6);
      const lowered = await licence(w, key);
      assert.deepEqual(
        [lowered.status, lowered.transactionId, lowered.activationsUsed, lowered.activationLimit],
        ['ACTIVE', six, 8, 6],
        'the 8 instances are kept over the new limit',
      );
      // No new instance until fewer than 6 are in use.
      const refused = await activate(w, key, 'seat-9');
      assert.deepEqual([refused.status, refused.json.error], [400, 'INVALID_STATE'], refused.text);
      const ids = lowered.instances.map((i: { instanceId: string }) => i.instanceId);
      for (const instanceId of ids.slice(0, 2))
        assert.equal((await w.api(path(key, 'deactivate'), { method: 'POST', body: { instanceId } })).status, 200);
      assert.equal((await activate(w, key, 'seat-9')).status, 400, '6 in use, limit 6');
      const third = { instanceId: ids[2] };
      assert.equal((await w.api(path(key, 'deactivate'), { method: 'POST', body: third })).status, 200);
      assert.equal((await activate(w, key, 'seat-9')).status, 200);
      // The 8 seats' period ends: the key stays active on the 6.
      clock.set(new Date('2031-06-24T03:00:00.000Z'));
      await t.services.billing.runDue({ sandboxVendorId: w.vendor.id });
      assert.deepEqual([(await licence(w, key)).status, (await licence(w, key)).activationLimit], ['ACTIVE', 6]);
    });

    test('20 simultaneous seat changes move the key once: one key, on the one subscription that goes on', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const w = await t.newVendor('Seat keys at once');
      const product = await licensed(w);
      const { id, key } = await bought(w, product.id, 5);
      assert.equal((await activate(w, key, 'laptop')).status, 200);
      clock.set(new Date('2031-05-11T00:00:00.000Z'));
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => w.api(`/v1/update-quantity/${id}`, { body: { quantity: 8 } })),
      );
      assert.ok(
        answers.every((a) => a.status < 500),
        'no answer is a server error',
      );
      const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.json.id as string));
      assert.equal(ids.size, 1, answers.map((a) => a.text).join('\n'));
      const [next] = [...ids];
      const read = await licence(w, key);
      assert.deepEqual([read.transactionId, read.activationsUsed, read.activationLimit], [next, 1, 8]);
      const keys = await Promise.all([id, next!].map((tx) => t.services.store.licences.keyOf(w.scope(), tx)));
      assert.deepEqual(keys, [undefined, key]);
    });

    test('a switch to another product issues that product’s own key', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const w = await t.newVendor('Other product keys');
      const basic = await licensed(w);
      const plus = await licensed(w);
      const { id, key } = await bought(w, basic.id, 2);
      const result = await t.services.purchases.switchPlan(w.scope(), {
        oldId: id,
        productId: plus.id,
        email: 'team@example.com',
        atPeriodEnd: false,
        quantity: 2,
      });
      assert.ok(result.status === 'PAID' && result.licence, JSON.stringify(result));
      assert.notEqual(result.licence, key);
      assert.equal(await t.services.store.licences.keyOf(w.scope(), result.transaction.id), result.licence);
      assert.equal(await t.services.store.licences.keyOf(w.scope(), id), key, 'the old key stays with its purchase');
    });
  });
}
