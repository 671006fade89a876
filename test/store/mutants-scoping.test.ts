import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The store keeps every vendor's rows to that vendor and environment even when a caller passes the
 * wrong scope: the domain's own checks are not the only line of defence.
 */
for (const kind of await storeKinds()) {
  describe(`store scoping of writes (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, {}, (app, vendor) => ((t = app), (v = vendor)));

    test("an update of a transaction under another vendor's scope changes nothing", async () => {
      const other = await t.newVendor('Other Vendor');
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      const store = t.services.store;
      await store.transactions.update(
        other.scope(),
        id,
        { payload: 'tampered' },
        { flag: 'CHANGED_STATUS_REFUNDED', at: new Date().toISOString() },
      );
      await store.transactions.update(v.scope('production'), id, { payload: 'tampered in production' });
      const after = await store.transactions.find(v.scope(), id);
      assert.notEqual(after?.payload, 'tampered');
      assert.notEqual(after?.payload, 'tampered in production');
      assert.equal(after?.changeFlag, 'CHANGED_STATUS_NEW');
    });

    test("releasing an Idempotency-Key frees only the releasing vendor's key, not another vendor's key of the same text", async () => {
      const other = await t.newVendor('Other Vendor');
      const store = t.services.store;
      const at = new Date().toISOString();
      assert.equal(await store.idempotency.claim(v.scope(), 'same-key', 'hash-a', at), undefined);
      assert.equal(await store.idempotency.claim(other.scope(), 'same-key', 'hash-b', at), undefined);
      await store.idempotency.release(other.scope(), 'same-key');
      const mine = await store.idempotency.claim(v.scope(), 'same-key', 'hash-a', at);
      assert.equal(mine?.state, 'IN_PROGRESS');
      assert.equal(mine?.requestHash, 'hash-a');
    });

    test("marking another vendor's transaction processed is refused and leaves it in that vendor's feed", async () => {
      const other = await t.newVendor('Other Vendor');
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      const store = t.services.store;
      await store.feed.list(v.scope(), 100);
      assert.equal(await store.feed.markProcessed(other.scope(), id), false);
      assert.equal(await store.feed.markProcessed(v.scope('production'), id), false);
      const feed = await store.feed.list(v.scope(), 100);
      assert.ok(feed.transactions.some((x) => x.id === id));
    });
  });
}
