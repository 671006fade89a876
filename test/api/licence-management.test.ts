import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { businessPurchase, signedUp } from '../helpers/panel-world.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * The panel's licence keys (docs/decisions.md §40): a purchase's key with where it is activated, an
 * instance freed, revoke (the key stops working, the purchase is untouched) and reissue (a new key,
 * the old one inactive for good, its instances dropped, the customer e-mailed the new key), each a
 * CSRF-checked POST that finds no other vendor's transaction.
 */
for (const kind of await storeKinds()) {
  describe(`panel licence keys (${kind})`, () => {
    let t: TestApp;
    let inbox: SmtpInbox;
    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        env: {
          PANEL_SIGNUP: 'open',
          SMTP_URL: inbox.url,
          SMTP_FROM: 'r@opentill.test',
          SMTP_SANDBOX_TO: 'customers',
          LICENCE_KEY_REQUESTS_PER_ADDRESS: '100000',
        },
      });
    });
    after(async () => {
      await t.close();
      await inbox.close();
    });

    /** The customer's app, with the key alone. */
    const app = (key: string, action = '', body?: unknown) =>
      fetch(`${t.url}/sandbox/v1/licences/${encodeURIComponent(key)}${action && `/${action}`}`, {
        method: body ? 'POST' : 'GET',
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));

    test('the detail page lists where the key is activated, and frees an instance', async () => {
      const { b, scope } = await signedUp(t, 'instances@licences.test');
      const { id, licence } = await businessPurchase(t, scope);
      const laptop = await app(licence, 'activate', { instanceName: 'ann-laptop' });
      await app(licence, 'activate', { instanceName: 'ann-desktop' });
      const page = (await b.get(`/panel/transactions/${id}?env=sandbox`)).html;
      assert.match(page, /Active · activations in use: 2 \(no limit\)/);
      assert.equal([...page.matchAll(/data-testid="instance"/g)].length, 2);
      assert.match(page, /ann-laptop/);
      const freed = await b.post(`/panel/transactions/${id}/licence/deactivate?env=sandbox`, {
        instanceId: laptop.json.instanceId,
      });
      assert.equal(freed.status, 303);
      assert.match(freed.location!, /done=licence-instance-freed/);
      const after = await app(licence);
      assert.deepEqual(
        after.json.instances.map((i: { instanceName: string }) => i.instanceName),
        ['ann-desktop'],
      );
      assert.match((await b.get(freed.location!)).html, /The activation is removed: its slot is free/);
      // Freed twice (a second click): that instance is gone, so not found; nothing else changes.
      await b.get(`/panel/transactions/${id}?env=sandbox`);
      const again = await b.post(`/panel/transactions/${id}/licence/deactivate?env=sandbox`, {
        instanceId: laptop.json.instanceId,
      });
      assert.equal(again.status, 404);
      assert.equal((await app(licence)).json.activationsUsed, 1);
    });

    test('revoke makes the key inactive and leaves the purchase as it was', async () => {
      const { b, scope } = await signedUp(t, 'revoke@licences.test');
      const { id, licence } = await businessPurchase(t, scope);
      await app(licence, 'activate', { instanceName: 'before' });
      const before = await t.services.transactions.get(scope, id);
      await b.get(`/panel/transactions/${id}?env=sandbox`);
      const revoked = await b.post(`/panel/transactions/${id}/licence/revoke?env=sandbox`, {});
      assert.equal(revoked.status, 303);
      assert.match(revoked.location!, /done=licence-revoked/);
      const read = await app(licence);
      assert.equal(read.json.status, 'INACTIVE');
      const refused = await app(licence, 'activate', { instanceName: 'after' });
      assert.equal(refused.status, 400);
      assert.match(refused.json.message, /inactive/);
      const checked = await t.services.licences.check(scope, read.json.productId, licence);
      assert.equal(checked.status, 'INACTIVE');
      const afterRevoke = await t.services.transactions.get(scope, id);
      assert.deepEqual(afterRevoke.transaction, before.transaction, 'the purchase is untouched');
      const page = (await b.get(`/panel/transactions/${id}?env=sandbox`)).html;
      assert.match(page, /Revoked on \d{4}-\d{2}-\d{2}: the key no longer works/);
      assert.doesNotMatch(page, /data-testid="revoke-licence"/);
    });

    test('reissue gives a new key, the old one inactive with no instances, and e-mails the customer the new key', async () => {
      const { b, scope } = await signedUp(t, 'reissue@licences.test');
      const { id, licence: old } = await businessPurchase(t, scope);
      await app(old, 'activate', { instanceName: 'old-machine' });
      await b.get(`/panel/transactions/${id}?env=sandbox`);
      // Revoked first: a reissue lifts the revocation, the new key works.
      await b.post(`/panel/transactions/${id}/licence/revoke?env=sandbox`, {});
      await b.get(`/panel/transactions/${id}?env=sandbox`);
      const reissued = await b.post(`/panel/transactions/${id}/licence/reissue?env=sandbox`, {});
      assert.equal(reissued.status, 303);
      assert.match(reissued.location!, /done=licence-reissued/);
      const page = (await b.get(reissued.location!)).html;
      const fresh = /<code id="licence" data-testid="licence">([^<]+)<\/code>/.exec(page)![1]!;
      assert.notEqual(fresh, old);
      assert.match(fresh, /^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
      assert.match(page, /Active · activations in use: 0/);

      const oldRead = await app(old);
      assert.equal(oldRead.json.status, 'INACTIVE');
      assert.equal(oldRead.json.activationsUsed, 0);
      assert.deepEqual(oldRead.json.instances, []);
      assert.equal((await app(old, 'activate', { instanceName: 'again' })).status, 400);
      const newRead = await app(fresh);
      assert.equal(newRead.json.status, 'ACTIVE');
      assert.deepEqual(newRead.json.instances, []);
      assert.equal((await app(fresh, 'activate', { instanceName: 'old-machine' })).status, 200);
      const productId = newRead.json.productId;
      assert.equal((await t.services.licences.check(scope, productId, old)).status, 'INACTIVE');
      assert.equal((await t.services.licences.check(scope, productId, fresh)).status, 'ACTIVE');

      await t.services.emails.runDue();
      const mails = inbox.to('ann@example.com').filter((m) => /new licence key/i.test(m.subject ?? ''));
      assert.equal(mails.length, 1);
      assert.match(mails[0]!.text ?? '', new RegExp(fresh));
      assert.match(mails[0]!.text ?? '', /previous key no longer works/);
      assert.doesNotMatch(mails[0]!.text ?? '', new RegExp(old));
    });

    test("the product form sets, changes and lifts a product's activation limit, and refuses a bad one", async () => {
      const { b, scope } = await signedUp(t, 'form@licences.test');
      await b.get('/panel/products?env=sandbox');
      const fields = { name: 'Desk App', type: 'ONETIME', prices: 'USD 30', licences: 'yes' };
      const created = await b.post('/panel/products?env=sandbox', { ...fields, activationLimit: '2' });
      assert.equal(created.status, 303);
      const [product] = await t.services.catalog.listProducts(scope);
      assert.equal(product!.activationLimit, 2);
      const page = (await b.get('/panel/products?env=sandbox')).html;
      assert.match(
        page,
        new RegExp(`id="activationLimit-${product!.id}" name="activationLimit" inputmode="numeric" value="2"`),
      );
      const edit = (activationLimit: string) =>
        b.post('/panel/products/edit?env=sandbox', {
          id: product!.id,
          name: 'Desk App',
          prices: 'USD 30',
          licences: 'yes',
          activationLimit,
        });
      assert.equal((await edit('5')).status, 303);
      assert.equal((await t.services.catalog.readProduct(scope, product!.id)).activationLimit, 5);
      await b.get('/panel/products?env=sandbox');
      const refused = await edit('0');
      assert.equal(refused.status, 400);
      assert.match(refused.html, /activationLimit must be a whole number from 1 to 10000, or null for no limit/);
      assert.match(refused.html, /name="activationLimit" inputmode="numeric" value="0"/, 'what was typed stays');
      assert.equal((await t.services.catalog.readProduct(scope, product!.id)).activationLimit, 5);
      assert.equal((await edit('')).status, 303);
      assert.equal((await t.services.catalog.readProduct(scope, product!.id)).activationLimit, null);
    });

    test('without the form token nothing changes; another vendor finds no such transaction', async () => {
      const { b, scope } = await signedUp(t, 'guard@licences.test');
      const { id, licence } = await businessPurchase(t, scope);
      await b.get(`/panel/transactions/${id}?env=sandbox`);
      assert.equal((await b.post(`/panel/transactions/${id}/licence/revoke?env=sandbox`, {}, false)).status, 403);
      assert.equal((await b.post(`/panel/transactions/${id}/licence/reissue?env=sandbox`, {}, false)).status, 403);
      const { b: other } = await signedUp(t, 'other@licences.test');
      await other.get('/panel/transactions?env=sandbox');
      assert.equal((await other.post(`/panel/transactions/${id}/licence/revoke?env=sandbox`, {})).status, 404);
      assert.equal((await other.post(`/panel/transactions/${id}/licence/reissue?env=sandbox`, {})).status, 404);
      const read = await app(licence);
      assert.equal(read.json.status, 'ACTIVE');
      assert.equal(read.json.licence, licence);
    });
  });
}
