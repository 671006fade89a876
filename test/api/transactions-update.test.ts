import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/** SPEC 2.1 "update responses": the by-id read minus entries and nextCharge, assignEmail for assignedEmail. */
const UPDATE_FIELDS = [
  'id',
  'createDate',
  'email',
  'assignEmail',
  'productId',
  'productName',
  'transactionType',
  'transactionStatus',
  'chargeFrequency',
  'country',
  'lastCharge',
  'payload',
  'whoCanceled',
  'netPrice',
  'netPriceS',
  'netPriceInUSD',
  'netPriceInUSDS',
  'tax',
  'taxS',
  'currency',
].sort();

for (const kind of await storeKinds()) {
  describe(`assign e-mail and update payload (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, {}, (app, vendor) => ((t = app), (v = vendor)));

    const update = (id: string, body: unknown) => v.api(`/v1/transaction/${id}`, { body });

    test('assigning an e-mail answers the update shape with assignEmail and keeps the original email', async () => {
      const product = await v.product({
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      });
      const id = await v.buy(product.id, { email: 'paid-with@example.com', country: 'DE', payload: 'p1' });
      const res = await update(id, { assignEmail: 'Sign.Up+Tag@Example.com' });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json).sort(), UPDATE_FIELDS);
      assert.equal('assignedEmail' in res.json, false);
      assert.equal('entries' in res.json, false);
      assert.equal('nextCharge' in res.json, false);
      assert.equal(res.json.assignEmail, 'Sign.Up+Tag@Example.com');
      assert.equal(res.json.email, 'paid-with@example.com');
      assert.equal(res.json.id, id);
      assert.equal(res.json.payload, 'p1');
      assert.equal(res.json.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(res.json.netPrice, 18.5);
      assert.equal(res.json.netPriceS, '18.50');
      assert.equal(res.json.tax, 3.52);
      assert.equal(res.json.taxS, '3.52');
      assert.equal(res.json.netPriceInUSD, 20);
      assert.equal(res.json.netPriceInUSDS, '20.00');
      assert.equal(res.json.currency, 'EUR');

      const read = await v.api(`/v1/transaction/${id}`);
      assert.equal(read.json.assignedEmail, 'Sign.Up+Tag@Example.com');
      assert.equal(read.json.email, 'paid-with@example.com');
      assert.equal('assignEmail' in read.json, false);
    });

    test('the assigned e-mail finds the transaction case-insensitively, with + and @ URL-encoded or not', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id, { email: 'original-buyer@example.com' });
      assert.equal((await update(id, { assignEmail: 'Found.Me+Shop@Example.org' })).status, 200);
      for (const path of [
        'found.me%2Bshop%40example.org',
        'FOUND.ME+SHOP@EXAMPLE.ORG',
        'Found.Me%2BShop@example.ORG',
        'found.me+shop%40example.org',
      ]) {
        const res = await v.api(`/v1/transactions/${path}`);
        assert.equal(res.status, 200, path);
        assert.deepEqual(
          res.json.map((x: { id: string }) => x.id),
          [id],
          path,
        );
        assert.equal(res.json[0].assignedEmail, 'Found.Me+Shop@Example.org');
      }
      // The purchase e-mail still finds it too.
      assert.deepEqual(
        (await v.api('/v1/transactions/Original-Buyer%40example.com')).json.map((x: { id: string }) => x.id),
        [id],
      );
    });

    test('re-assigning replaces the assigned e-mail: the old one no longer finds the transaction', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id, { email: 'reassign-buyer@example.com' });
      await update(id, { assignEmail: 'first-assign@example.com' });
      const res = await update(id, { assignEmail: 'second-assign@example.com' });
      assert.equal(res.json.assignEmail, 'second-assign@example.com');
      assert.deepEqual((await v.api('/v1/transactions/first-assign@example.com')).json, []);
      assert.equal((await v.api('/v1/transactions/second-assign@example.com')).json.length, 1);
    });

    test('a malformed assignEmail is 400 and nothing changes', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      for (const assignEmail of ['not-an-email', 'two@@example.com', '', 'spaces in@example.com']) {
        const res = await update(id, { assignEmail });
        assert.equal(res.status, 400, assignEmail);
        assert.equal(typeof res.json.message, 'string');
      }
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.assignedEmail, null);
    });

    test('the payload can be replaced by a string and then cleared with null', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id, { payload: 'original' });
      const set = await update(id, { payload: 'encrypted:abc123' });
      assert.equal(set.status, 200);
      assert.deepEqual(Object.keys(set.json).sort(), UPDATE_FIELDS);
      assert.equal(set.json.payload, 'encrypted:abc123');
      assert.equal(set.json.assignEmail, null);
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.payload, 'encrypted:abc123');

      const cleared = await update(id, { payload: null });
      assert.equal(cleared.status, 200);
      assert.equal(cleared.json.payload, null);
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.payload, null);
    });

    test('a payload of 4999 characters is kept; 5000 is 400 and nothing changes', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id, { payload: 'keep' });
      const longest = 'x'.repeat(4999);
      assert.equal((await update(id, { payload: longest })).json.payload, longest);
      const tooLong = await update(id, { payload: 'y'.repeat(5000) });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.json.error, 'PAYLOAD_TOO_LONG');
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.payload, longest);
    });

    test('a body with both fields, neither, or an unknown field is 400', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      for (const body of [{ assignEmail: 'a@example.com', payload: 'x' }, {}, { other: 1 }, { payload: 5 }]) {
        const res = await update(id, body);
        assert.equal(res.status, 400, JSON.stringify(body));
      }
      const read = await v.api(`/v1/transaction/${id}`);
      assert.equal(read.json.assignedEmail, null);
      assert.equal(read.json.payload, null);
    });

    test('updating does not put the transaction back in the changed feed', async () => {
      const w = await t.newVendor('feed');
      const product = await w.product({ type: 'ONETIME' });
      const id = await w.buy(product.id);
      await w.api('/v1/changed-transactions');
      await w.api(`/v1/changed-transactions/${id}`, { method: 'POST' });
      await w.api(`/v1/transaction/${id}`, { body: { assignEmail: 'feed-assign@example.com' } });
      await w.api(`/v1/transaction/${id}`, { body: { payload: 'new' } });
      assert.deepEqual((await w.api('/v1/changed-transactions')).json, []);
    });

    test('an unknown or foreign transaction is 404', async () => {
      const other = await t.newVendor('other');
      const product = await other.product({ type: 'ONETIME' });
      const foreign = await other.buy(product.id);
      assert.equal((await update(foreign, { assignEmail: 'steal@example.com' })).status, 404);
      assert.equal((await update(foreign, { payload: 'steal' })).status, 404);
      assert.equal((await update('TC-TR_UNKNOWN', { payload: 'x' })).status, 404);
      const read = await other.api(`/v1/transaction/${foreign}`);
      assert.equal(read.json.assignedEmail, null);
      assert.equal(read.json.payload, null);
    });
  });
}
