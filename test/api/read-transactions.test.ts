import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { storeKinds, useTestApp, type TestVendor } from '../helpers/test-app.ts';

for (const kind of await storeKinds()) {
  describe(`reading transactions (${kind})`, () => {
    let v: TestVendor;
    useTestApp(kind, {}, (_app, vendor) => (v = vendor));

    test('a one-time purchase in Germany lists with EUR price, VAT, USD net and string twins', async () => {
      const product = await v.product({
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      });
      const id = await v.buy(product.id, { email: 'Anna@Example.com', country: 'DE' });
      const res = await v.api('/v1/transactions/anna%40example.com');
      assert.equal(res.status, 200);
      assert.equal(res.json.length, 1);
      const tx = res.json[0];
      assert.equal(tx.id, id);
      assert.equal(tx.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(tx.chargeFrequency, 'UNKNOWN');
      assert.equal('nextCharge' in tx, false, 'absent for one-time transactions');
      assert.equal(tx.currency, 'EUR');
      assert.equal(tx.netPrice, 18.5);
      assert.equal(tx.netPriceS, '18.50');
      assert.equal(tx.tax, 3.52); // 19% of 18.50 = 3.515, rounded half-up
      assert.equal(tx.taxS, '3.52');
      assert.equal(tx.netPriceInUSD, 20);
      assert.equal(tx.netPriceInUSDS, '20.00');
      assert.equal(tx.assignedEmail, null);
      assert.match(tx.createDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    test('the by-id read carries the ledger and no nextCharge', async () => {
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 10 }] });
      const id = await v.buy(product.id, { email: 'entries@example.com', country: 'US', region: 'CA' });
      const res = await v.api(`/v1/transaction/${id}`);
      assert.equal(res.status, 200);
      assert.equal('nextCharge' in res.json, false);
      assert.equal(res.json.entries.length, 1);
      const [entry] = res.json.entries;
      assert.equal(entry.type, 'ONETIME_PAYMENT');
      assert.equal(entry.amountTotal, '10.83'); // California 8.25%: 0.825 rounds to 0.83
      assert.equal(entry.taxAmount, '0.83');
      assert.equal(entry.taxRate, '0.0825');
      assert.equal(entry.currency, 'USD');
    });

    test('the by-email list matches the purchase or the assigned e-mail, each transaction once, newest first', async () => {
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 10 }] });
      // A millisecond apart at least: two transactions made in the same one have no newer of the two.
      const own = await v.buy(product.id, { email: 'list@example.com' });
      await sleep(2);
      const given = await v.buy(product.id, { email: 'other@example.com' });
      await sleep(2);
      const both = await v.buy(product.id, { email: 'list@example.com' });
      assert.equal(
        (await v.api(`/v1/transaction/${given}`, { method: 'POST', body: { assignEmail: 'LIST@example.com' } })).status,
        200,
      );
      assert.equal(
        (await v.api(`/v1/transaction/${both}`, { method: 'POST', body: { assignEmail: 'list@example.com' } })).status,
        200,
      );
      const listed = (await v.api('/v1/transactions/List%40Example.com')).json as { id: string }[];
      assert.deepEqual(
        listed.map((t) => t.id),
        [both, given, own],
      );
      assert.deepEqual(
        ((await v.api('/v1/transactions/other%40example.com')).json as { id: string }[]).map((t) => t.id),
        [given],
      );
    });

    test('an unknown id is 404 with {error, message}', async () => {
      const res = await v.api('/v1/transaction/TC-TR_DOESNOTEXIST');
      assert.equal(res.status, 404);
      assert.equal(res.json.error, 'NOT_FOUND');
      assert.equal(typeof res.json.message, 'string');
    });
  });
}
