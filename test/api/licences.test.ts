import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Product } from '../../src/domain/model.ts';
import { useTestApp, storeKinds, TEST_CARD, type TestApp, type TestVendor } from '../helpers/test-app.ts';

for (const kind of await storeKinds()) {
  describe(`check-licence (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, {}, (app, vendor) => ((t = app), (v = vendor)));

    /** Buys through the domain to learn the licence key the checkout would show the customer. */
    const buyLicensed = async (product: Product, email = 'licensee@example.com') => {
      const result = await t.services.purchases.purchase(v.scope(), {
        productId: product.id,
        email,
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PAID');
      if (result.status !== 'PAID') throw new Error('declined');
      assert.ok(result.licence, 'a licensed product issues a key');
      return { id: result.transaction.id, licence: result.licence };
    };
    const check = (productId: string, licence: string) =>
      v.api(`/v1/check-licence/${productId}/${encodeURIComponent(licence)}`);

    test('a paid purchase of a licensed product has an ACTIVE licence', async () => {
      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const { id, licence } = await buyLicensed(product);
      assert.match(licence, /^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
      const res = await check(product.id, licence);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, {
        status: 'ACTIVE',
        productId: product.id,
        transactionId: id,
        licence,
        activations: { used: 0, limit: null },
      });
    });

    test('each purchase gets its own key', async () => {
      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const first = await buyLicensed(product, 'first@example.com');
      const second = await buyLicensed(product, 'second@example.com');
      assert.notEqual(first.licence, second.licence);
      assert.equal((await check(product.id, second.licence)).json.transactionId, second.id);
    });

    test('a product without licences issues none', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const result = await t.services.purchases.purchase(v.scope(), {
        productId: product.id,
        email: 'x@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(result.status === 'PAID' && result.licence, null);
    });

    test('after a refund the licence is INACTIVE', async () => {
      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const { id, licence } = await buyLicensed(product);
      assert.equal((await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' })).status, 200);
      const res = await check(product.id, licence);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, {
        status: 'INACTIVE',
        productId: product.id,
        transactionId: id,
        licence,
        activations: { used: 0, limit: null },
      });
    });

    test('a subscription stays ACTIVE while cancelled but paid up, and in trial', async () => {
      const product = await v.product({ type: 'SUBSCRIPTION', issuesLicences: true });
      const paid = await buyLicensed(product);
      await v.api(`/v1/cancel-subscription/${paid.id}`, { method: 'POST' });
      assert.equal((await check(product.id, paid.licence)).json.status, 'ACTIVE');

      const trialProduct = await v.product({ type: 'SUBSCRIPTION', issuesLicences: true, trialDays: 7 });
      const trial = await buyLicensed(trialProduct);
      assert.equal((await check(trialProduct.id, trial.licence)).json.status, 'ACTIVE');
      // Cancelling in trial ends it at once: the licence is no longer active.
      await v.api(`/v1/cancel-subscription/${trial.id}`, { method: 'POST' });
      assert.equal((await check(trialProduct.id, trial.licence)).json.status, 'INACTIVE');
    });

    test('an unknown key is NOT_FOUND', async () => {
      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const res = await check(product.id, 'AAAAA-BBBBB-CCCCC-DDDDD-EEEEE');
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, {
        status: 'NOT_FOUND',
        productId: product.id,
        transactionId: null,
        licence: 'AAAAA-BBBBB-CCCCC-DDDDD-EEEEE',
        activations: null,
      });
    });

    test('a key of another product of the same vendor is NOT_FOUND', async () => {
      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const otherProduct = await v.product({ type: 'ONETIME', issuesLicences: true });
      const { licence } = await buyLicensed(product);
      assert.equal((await check(otherProduct.id, licence)).json.status, 'NOT_FOUND');
    });

    test("another vendor's product id, or an unknown one, is 404", async () => {
      const other = await t.newVendor('other');
      const foreign = await other.product({ type: 'ONETIME', issuesLicences: true });
      const result = await t.services.purchases.purchase(other.scope(), {
        productId: foreign.id,
        email: 'o@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      assert.ok(result.status === 'PAID' && result.licence);
      const res = await check(foreign.id, result.licence);
      assert.equal(res.status, 404);
      assert.equal(res.json.error, 'NOT_FOUND');
      assert.equal((await check('TC-PR_UNKNOWN', 'AAAAA')).status, 404);
      // The owner still sees it.
      assert.equal((await other.api(`/v1/check-licence/${foreign.id}/${result.licence}`)).json.status, 'ACTIVE');
    });

    test('the key matches in lower case and with surrounding spaces', async () => {
      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const { id, licence } = await buyLicensed(product);
      const lower = await check(product.id, licence.toLowerCase());
      assert.equal(lower.status, 200);
      assert.equal(lower.json.status, 'ACTIVE');
      assert.equal(lower.json.transactionId, id);
      assert.equal((await check(product.id, ` ${licence} `)).json.status, 'ACTIVE');
    });

    test('a sandbox licence is not found in production', async () => {
      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const { licence } = await buyLicensed(product);
      const res = await v.api(`/v1/check-licence/${product.id}/${licence}`, { environment: 'production' });
      assert.equal(res.status, 404);
    });
  });
}
