import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Scope } from '../../src/domain/model.ts';
import type { FormBrowser } from '../helpers/form-browser.ts';
import { signedUp } from '../helpers/panel-world.ts';
import { startTestApp, storeKinds, TEST_CARD, type TestApp } from '../helpers/test-app.ts';

/**
 * Archive from the panel's product form (docs/decisions.md §28, §42): behind a box to tick, it stops
 * new sales at the checkout, and what was sold goes on: a subscription sold before renews, charged.
 */
for (const kind of await storeKinds()) {
  describe(`archiving a product from the panel (${kind})`, () => {
    let t: TestApp;
    let owner: { b: FormBrowser; scope: Scope };
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
      owner = await signedUp(t, 'owner@archive.test', 'Archive Co');
    });
    after(() => t.close());

    const checkout = async (id: string) => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${id}`);
      return { status: res.status, html: await res.text() };
    };
    const post = async (fields: Record<string, string>) => {
      await owner.b.get('/panel/products?env=sandbox');
      return owner.b.post('/panel/products/archive?env=sandbox', fields);
    };
    const archivedAt = async (id: string) => (await t.services.catalog.readProduct(owner.scope, id)).archivedAt;

    test('without the box ticked nothing changes; ticked, the checkout refuses new sales until it is sold again', async () => {
      const product = await t.services.catalog.createProduct(owner.scope, {
        name: 'Old Plan',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 30 }],
      });
      const page = await owner.b.get('/panel/products?env=sandbox');
      assert.match(page.html, /<summary>Archive<\/summary>/);
      assert.match(page.html, /Stop selling Old Plan: its checkout and payment links refuse new purchases/);

      const unconfirmed = await post({ id: product.id, action: 'archive' });
      assert.equal(unconfirmed.status, 400);
      assert.match(unconfirmed.html, /Tick the box to confirm that nobody may buy this product any more/);
      assert.equal(await archivedAt(product.id), null);
      assert.equal((await checkout(product.id)).status, 200);

      const archived = await post({ id: product.id, action: 'archive', confirm: 'yes' });
      assert.equal(archived.status, 303, archived.html);
      assert.match(archived.location ?? '', /done=product-archived/);
      assert.ok(await archivedAt(product.id));
      const refused = await checkout(product.id);
      assert.equal(refused.status, 403);
      assert.match(refused.html, /no longer sells this product/);
      assert.match((await owner.b.get('/panel/products?env=sandbox')).html, /<summary>Sell again<\/summary>/);

      const notAgain = await post({ id: product.id, action: 'unarchive' });
      assert.equal(notAgain.status, 400);
      assert.ok(await archivedAt(product.id), 'still archived without the box');
      const again = await post({ id: product.id, action: 'unarchive', confirm: 'yes' });
      assert.equal(again.status, 303);
      assert.match(again.location ?? '', /done=product-unarchived/);
      assert.equal(await archivedAt(product.id), null);
      assert.equal((await checkout(product.id)).status, 200);
    });

    test("another vendor's product cannot be archived from this panel", async () => {
      const other = await signedUp(t, 'other@archive.test', 'Other Co');
      const theirs = await t.services.catalog.createProduct(other.scope, {
        name: 'Theirs',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 5 }],
      });
      const res = await post({ id: theirs.id, action: 'archive', confirm: 'yes' });
      assert.equal(res.status, 400);
      assert.match(res.html, /not found/i);
      assert.equal((await t.services.catalog.readProduct(other.scope, theirs.id)).archivedAt, null);
    });

    test("a subscription sold before the archive renews when the vendor's sandbox clock reaches its date, charged the product's price", async () => {
      const product = await t.services.catalog.createProduct(owner.scope, {
        name: 'Monthly Plan',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18 },
        ],
      });
      const sold = await t.services.purchases.purchase(owner.scope, {
        productId: product.id,
        email: 'subscriber@archive.test',
        country: 'DE',
        card: TEST_CARD,
      });
      assert.equal(sold.status, 'PAID');
      if (sold.status !== 'PAID') return;
      assert.equal((await post({ id: product.id, action: 'archive', confirm: 'yes' })).status, 303);

      const before = (await t.services.store.transactions.find(owner.scope, sold.transaction.id))!;
      // One second short of the next charge: nothing yet (the renewal is due on its date, not before).
      const due = Date.parse(before.nextCharge!);
      const now = (await t.services.sandboxClock.read(owner.scope)).now;
      await t.services.sandboxClock.advance(owner.scope, { seconds: Math.floor((due - Date.parse(now)) / 1000) - 1 });
      await t.services.billing.runDue({ sandboxVendorId: owner.scope.vendorId });
      const payments = async () =>
        (await t.services.store.entries.listForTransaction(sold.transaction.id)).filter(
          (e) => e.type === 'SUBSCRIPTION_PAYMENT',
        );
      assert.equal((await payments()).length, 1);

      await t.services.sandboxClock.advance(owner.scope, { seconds: 2 });
      await t.services.billing.runDue({ sandboxVendorId: owner.scope.vendorId });
      const charged = await payments();
      assert.equal(charged.length, 2, 'renewed although archived');
      // The buyer in Germany pays the EUR price with 19% VAT: 18.00 + 3.42 = 21.42, again at the renewal.
      assert.deepEqual(
        charged.map((e) => [e.currency, e.amountTotalMinor]),
        [
          ['EUR', 2142],
          ['EUR', 2142],
        ],
      );
      const after = (await t.services.store.transactions.find(owner.scope, sold.transaction.id))!;
      assert.equal(after.status, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.ok(after.nextCharge! > before.nextCharge!);
    });
  });
}
