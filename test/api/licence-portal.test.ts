import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { licensedPurchase } from '../helpers/licensed-purchase.ts';
import { manageVisit } from '../helpers/manage-visit.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The management page's licence activations (docs/decisions.md §40): the customer sees where their
 * key is activated, how many of the limit are in use, and frees one with a form of the page; another
 * customer's activation is not theirs to free.
 */
for (const kind of await storeKinds()) {
  describe(`management page licence activations (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, {}, (app, vendor) => ((t = app), (v = vendor)));
    const { manageLink, open, formToken, post } = manageVisit(
      () => t,
      () => v,
    );
    const activate = (key: string, instanceName: string) =>
      v.api(`/v1/licences/${key}/activate`, { method: 'POST', body: { instanceName } });

    test('lists the instances with the limit, and frees one', async () => {
      const { key, transactionId } = await licensedPurchase(t, v, { activationLimit: 2 }, { email: 'lee@portal.test' });
      const first = await activate(key, 'Lee’s <MacBook>');
      await activate(key, 'office-pc');
      assert.equal((await activate(key, 'third')).status, 400);
      const path = await manageLink('lee@portal.test');
      const page = await open(path);
      assert.equal(page.status, 200);
      assert.match(page.html, /data-testid="licence-use">Activations in use: 2 of 2</);
      assert.equal([...page.html.matchAll(/data-testid="instance"/g)].length, 2);
      assert.match(page.html, /Lee’s &#60;MacBook&#62;/, 'the name is escaped');
      const freed = await post(path, {
        formToken: formToken(page.html),
        action: 'free-instance',
        transactionId,
        instanceId: first.json.instanceId,
      });
      assert.equal(freed.status, 303);
      assert.equal(freed.headers.get('location'), '?done=instance-freed');
      const after = await open(`${path}?done=instance-freed`);
      assert.match(after.html, /The activation is removed: your licence key can now be activated on another device\./);
      assert.match(after.html, /Activations in use: 1 of 2/);
      assert.doesNotMatch(after.html, /MacBook/);
      assert.equal((await activate(key, 'third')).status, 200, 'the freed slot takes another instance');
    });

    test("another customer's activation, or one already freed, is not freed", async () => {
      const mine = await licensedPurchase(t, v, { activationLimit: 2 }, { email: 'kim@portal.test' });
      const theirs = await licensedPurchase(t, v, { activationLimit: 2 }, { email: 'sam@portal.test' });
      const their = await activate(theirs.key, 'sams-pc');
      const own = await activate(mine.key, 'kims-pc');
      const path = await manageLink('kim@portal.test');
      const page = await open(path);
      for (const [transactionId, instanceId] of [
        [theirs.transactionId, their.json.instanceId],
        [mine.transactionId, their.json.instanceId],
        [mine.transactionId, 'TC-IN_UNKNOWN'],
      ]) {
        const res = await post(path, {
          formToken: formToken(page.html),
          action: 'free-instance',
          transactionId,
          instanceId,
        });
        assert.equal(res.status, 404, `${transactionId} ${instanceId}`);
      }
      const read = await v.api(`/v1/licences/${theirs.key}`);
      assert.equal(read.json.activationsUsed, 1);
      // Without the page's form token nothing is freed.
      const forged = await post(path, {
        formToken: 'forged',
        action: 'free-instance',
        transactionId: mine.transactionId,
        instanceId: own.json.instanceId,
      });
      assert.equal(forged.status, 403);
      assert.equal((await v.api(`/v1/licences/${mine.key}`)).json.activationsUsed, 1);
    });
  });
}
