import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { licensedPurchase } from '../helpers/licensed-purchase.ts';
import { useTestApp, storeKinds, TEST_CARD, type TestApp, type TestVendor } from '../helpers/test-app.ts';

for (const kind of await storeKinds()) {
  describe(`licence activations (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(
      kind,
      { env: { LICENCE_KEY_REQUESTS_PER_ADDRESS: '100000' } },
      (app, vendor) => ((t = app), (v = vendor)),
    );

    const path = (key: string, action = '') => `/v1/licences/${encodeURIComponent(key)}${action && `/${action}`}`;
    const activate = (key: string, instanceName: string, init: { authorization?: string } = {}) =>
      v.api(path(key, 'activate'), { method: 'POST', body: { instanceName }, ...init });
    const deactivate = (key: string, instanceId: string) =>
      v.api(path(key, 'deactivate'), { method: 'POST', body: { instanceId } });

    test('a key activates up to its limit; the next instance is refused with 400 and a message', async () => {
      const { key, product, transactionId } = await licensedPurchase(t, v, { activationLimit: 3 });
      const ids = [];
      for (const name of ['laptop', 'desktop', 'server']) {
        const res = await activate(key, name);
        assert.equal(res.status, 200, res.text);
        assert.match(res.json.instanceId, /^TC-IN_/);
        assert.equal(res.json.instanceName, name);
        ids.push(res.json.instanceId);
      }
      const refused = await activate(key, 'fourth');
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error, 'INVALID_STATE');
      assert.match(refused.json.message, /already activated on 3 instances, its limit: deactivate one/);
      const read = await v.api(path(key));
      assert.equal(read.status, 200);
      assert.equal(read.json.status, 'ACTIVE');
      assert.equal(read.json.productId, product.id);
      assert.equal(read.json.transactionId, transactionId);
      assert.equal(read.json.activationLimit, 3);
      assert.equal(read.json.activationsUsed, 3);
      assert.deepEqual(
        read.json.instances.map((i: { instanceId: string; instanceName: string }) => [i.instanceId, i.instanceName]),
        [
          [ids[0], 'laptop'],
          [ids[1], 'desktop'],
          [ids[2], 'server'],
        ],
      );
      // check-licence keeps its answer and adds how many are used.
      const checked = await v.api(`/v1/check-licence/${product.id}/${key}`);
      assert.deepEqual(checked.json, {
        status: 'ACTIVE',
        productId: product.id,
        transactionId,
        licence: key,
        activations: { used: 3, limit: 3 },
      });
    });

    test('20 simultaneous activations of a key limited to 3 activate exactly 3', async () => {
      const { key } = await licensedPurchase(t, v, { activationLimit: 3 });
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => activate(key, `machine-${i}`)));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(
        statuses,
        [...Array(3).fill(200), ...Array(17).fill(400)],
        answers.map((a) => a.text).join('\n'),
      );
      const read = await v.api(path(key));
      assert.equal(read.json.activationsUsed, 3);
      assert.equal(read.json.instances.length, 3);
    });

    test('20 simultaneous activations of one name make one instance and take one slot', async () => {
      const { key } = await licensedPurchase(t, v, { activationLimit: 3 });
      const answers = await Promise.all(Array.from({ length: 20 }, () => activate(key, 'same-machine')));
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
      assert.equal(new Set(answers.map((a) => a.json.instanceId)).size, 1);
      assert.equal((await v.api(path(key))).json.activationsUsed, 1);
    });

    test('deactivating frees the slot for another instance; an unknown instance is 404', async () => {
      const { key } = await licensedPurchase(t, v, { activationLimit: 1 });
      const first = await activate(key, 'old-laptop');
      assert.equal((await activate(key, 'new-laptop')).status, 400);
      const freed = await deactivate(key, first.json.instanceId);
      assert.equal(freed.status, 200, freed.text);
      assert.equal(freed.json.activationsUsed, 0);
      assert.deepEqual(freed.json.instances, []);
      assert.equal((await activate(key, 'new-laptop')).status, 200);
      const again = await deactivate(key, first.json.instanceId);
      assert.equal(again.status, 404);
      assert.equal(again.json.error, 'NOT_FOUND');
      assert.equal((await v.api(path(key))).json.activationsUsed, 1);
    });

    test('without a limit a key activates on any number of instances', async () => {
      const { key } = await licensedPurchase(t, v);
      for (let i = 0; i < 12; i++) assert.equal((await activate(key, `node-${i}`)).status, 200);
      const read = await v.api(path(key));
      assert.equal(read.json.activationLimit, null);
      assert.equal(read.json.activationsUsed, 12);
    });

    test('the key alone, without a credential, reads, activates and deactivates', async () => {
      const { key } = await licensedPurchase(t, v, { activationLimit: 2 });
      const alone = { authorization: '' };
      const activated = await activate(key.toLowerCase(), 'customer-pc', alone);
      assert.equal(activated.status, 200, activated.text);
      const read = await v.api(path(` ${key} `), alone);
      assert.equal(read.status, 200);
      assert.equal(read.json.activationsUsed, 1);
      const freed = await v.api(path(key, 'deactivate'), {
        method: 'POST',
        body: { instanceId: activated.json.instanceId },
        ...alone,
      });
      assert.equal(freed.status, 200);
      const unknown = await v.api(path('AAAAA-BBBBB-CCCCC-DDDDD-EEEEE'), alone);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.error, 'NOT_FOUND');
      // A sandbox key is unknown at production's address.
      assert.equal((await v.api(path(key), { ...alone, environment: 'production' })).status, 404);
    });

    test('a key holding U+0000 is a 400 on every licence route, with the key alone or a credential (PostgreSQL cannot compare it)', async () => {
      for (const authorization of [{ authorization: '' }, {}])
        for (const [key, action] of [
          ['%00', ''],
          ['AAAAA%00B', 'activate'],
          ['%00', 'deactivate'],
        ] as const) {
          const res = await v.api(`/v1/licences/${key}${action ? `/${action}` : ''}`, {
            ...authorization,
            ...(action
              ? { method: 'POST', body: action === 'activate' ? { instanceName: 'pc' } : { instanceId: 'x' } }
              : {}),
          });
          assert.equal(res.status, 400, `${key} ${action} ${JSON.stringify(authorization)}: ${res.text}`);
          assert.match(res.json.message, /NUL character/);
        }
    });

    test("another vendor's credential cannot read, activate or deactivate the key", async () => {
      const { key } = await licensedPurchase(t, v, { activationLimit: 2 });
      const mine = await activate(key, 'mine');
      const other = await t.newVendor('intruder');
      const read = await other.api(path(key));
      assert.equal(read.status, 404);
      assert.equal(
        (await other.api(path(key, 'activate'), { method: 'POST', body: { instanceName: 'x' } })).status,
        404,
      );
      const freed = await other.api(path(key, 'deactivate'), {
        method: 'POST',
        body: { instanceId: mine.json.instanceId },
      });
      assert.equal(freed.status, 404);
      assert.equal((await v.api(path(key))).json.activationsUsed, 1);
      // A wrong credential is refused, not taken for a key-alone request.
      assert.equal((await v.api(path(key), { authorization: 'nobody:wrong' })).status, 401);
    });

    test('a refunded licence is INACTIVE and cannot activate; its instances stay listed', async () => {
      const { key, transactionId } = await licensedPurchase(t, v, { activationLimit: 3 });
      assert.equal((await activate(key, 'before-refund')).status, 200);
      assert.equal((await v.api(`/v1/refund-transaction/${transactionId}`, { method: 'POST' })).status, 200);
      const refused = await activate(key, 'after-refund');
      assert.equal(refused.status, 400);
      assert.match(refused.json.message, /inactive/);
      const read = await v.api(path(key));
      assert.equal(read.json.status, 'INACTIVE');
      assert.equal(read.json.activationsUsed, 1);
    });

    test('an activation retried with the same Idempotency-Key answers the first one', async () => {
      const { key } = await licensedPurchase(t, v, { activationLimit: 3 });
      const headers = { 'idempotency-key': `activate-${key}` };
      const first = await v.api(path(key, 'activate'), { method: 'POST', body: { instanceName: 'a' }, headers });
      const again = await v.api(path(key, 'activate'), { method: 'POST', body: { instanceName: 'a' }, headers });
      assert.equal(again.status, 200);
      assert.equal(again.text, first.text);
      const conflict = await v.api(path(key, 'activate'), { method: 'POST', body: { instanceName: 'b' }, headers });
      assert.equal(conflict.status, 409);
      assert.equal((await v.api(path(key))).json.activationsUsed, 1);
    });

    test('a per-seat purchase activates on as many instances as it bought seats, whatever the product says', async () => {
      const product = await v.product({
        type: 'ONETIME',
        issuesLicences: true,
        activationLimit: 1,
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
      const result = await t.services.purchases.purchase(v.scope(), {
        productId: product.id,
        email: 'team@example.com',
        country: 'US',
        card: TEST_CARD,
        quantity: 4,
      });
      assert.ok(result.status === 'PAID' && result.licence);
      const key = result.licence;
      for (let i = 0; i < 4; i++) assert.equal((await activate(key, `seat-${i}`)).status, 200);
      const refused = await activate(key, 'seat-5');
      assert.equal(refused.status, 400);
      assert.match(refused.json.message, /already activated on 4 instances/);
      assert.equal((await v.api(path(key))).json.activationLimit, 4);
    });

    test("the product API sets, changes and lifts a product's activation limit, and refuses a bad one", async () => {
      const body = { name: 'Tool', type: 'ONETIME', issuesLicences: true, prices: [{ currency: 'USD', value: 5 }] };
      const created = await v.api('/v1/products', { body: { ...body, activationLimit: 3 } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.activationLimit, 3);
      const id = created.json.id;
      assert.equal((await v.api(`/v1/products/${id}`, { body: { activationLimit: 5 } })).json.activationLimit, 5);
      for (const activationLimit of [0, -1, 2.5, 10_001, '3']) {
        const refused = await v.api(`/v1/products/${id}`, { body: { activationLimit } });
        assert.equal(refused.status, 400, String(activationLimit));
      }
      assert.equal((await v.api(`/v1/products/${id}`)).json.activationLimit, 5);
      assert.equal((await v.api(`/v1/products/${id}`, { body: { activationLimit: null } })).json.activationLimit, null);
    });

    test('bad bodies are 400 and change nothing', async () => {
      const { key } = await licensedPurchase(t, v, { activationLimit: 3 });
      for (const body of [
        {},
        { instanceName: '' },
        { instanceName: '   ' },
        { instanceName: 'x', extra: 1 },
        { instanceName: 5 },
      ]) {
        const res = await v.api(path(key, 'activate'), { method: 'POST', body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(res.json.message);
      }
      assert.equal((await v.api(path(key, 'deactivate'), { method: 'POST', body: {} })).status, 400);
      assert.equal((await v.api(path(key))).json.activationsUsed, 0);
    });
  });

  describe(`licence requests with the key alone are limited per address (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { env: { LICENCE_KEY_REQUESTS_PER_ADDRESS: '3' } }, (app, vendor) => ((t = app), (v = vendor)));

    test('the fourth request in a minute without a credential is 429 with Retry-After; the credential is not limited by it', async () => {
      const { key } = await licensedPurchase(t, v);
      const alone = { authorization: '' };
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await v.api(`/v1/licences/${key}`, alone)).status);
      assert.deepEqual(statuses, [200, 200, 200]);
      const limited = await v.api(`/v1/licences/${key}/activate`, {
        method: 'POST',
        body: { instanceName: 'x' },
        ...alone,
      });
      assert.equal(limited.status, 429);
      assert.equal(limited.json.error, 'RATE_LIMITED');
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      // Unknown keys count too: guessing costs the same budget.
      assert.equal((await v.api('/v1/licences/AAAAA-BBBBB-CCCCC-DDDDD-EEEEE', alone)).status, 429);
      assert.equal((await v.api(`/v1/licences/${key}`)).status, 200, "the vendor's credential has its own limit");
      assert.equal((await v.api(`/v1/licences/${key}`)).json.activationsUsed, 0, 'the limited activation did nothing');
    });
  });
}
