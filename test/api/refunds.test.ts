import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const clock = fixedClock(new Date('2030-03-10T09:00:00.000Z'));
const tick = () => clock.advance(1000);

for (const kind of await storeKinds()) {
  describe(`refund-transaction (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const entriesOf = async (id: string, environment: 'sandbox' | 'production' = 'sandbox') => {
      const res = await v.api(`/v1/transaction/${id}`, { environment });
      assert.equal(res.status, 200);
      return res.json.entries as Array<Record<string, string>>;
    };

    test('refunding a one-time payment answers one refund record with every SPEC 2.5 field and the paid amounts', async () => {
      tick();
      const product = await v.product(
        {
          type: 'ONETIME',
          prices: [
            { currency: 'USD', value: 20 },
            { currency: 'EUR', value: 18.5 },
          ],
        },
        'production',
      );
      const id = await v.buy(product.id, { email: 'refund-me@example.com', country: 'DE' }, 'production');
      tick();
      const res = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST', environment: 'production' });
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.json));
      assert.equal(res.json.length, 1);
      const record = res.json[0];
      assert.deepEqual(
        Object.keys(record).sort(),
        [
          'TCFee',
          'amountTotal',
          'country',
          'currency',
          'externalId',
          'hashId',
          'id',
          'incomeCurrency',
          'invoiceLink',
          'paymentProvider',
          'refundable',
          'taxAmount',
          'timestamp',
          'transactionFee',
          'vendorIncome',
        ].sort(),
      );
      assert.equal(record.amountTotal, 22.02); // 18.50 net + 19% VAT (3.515 -> 3.52)
      assert.equal(record.taxAmount, 3.52);
      assert.equal(record.vendorIncome, 18.5);
      assert.equal(record.transactionFee, 0);
      assert.equal(record.TCFee, 0);
      assert.equal(record.currency, 'EUR');
      assert.equal(record.incomeCurrency, 'EUR');
      assert.equal(record.country, 'DE');
      assert.equal(record.paymentProvider, 'SANDBOX');
      assert.equal(record.refundable, false);
      assert.match(record.hashId, /^TC-BA_[0-9A-Z]{30}$/);
      assert.match(record.id, /^TC-EN_/);
      assert.equal(typeof record.externalId, 'string');
      assert.ok(record.externalId.length > 0);
      assert.equal(record.invoiceLink, `http://opentill.test/invoice/${record.hashId}`);
      assert.ok(Number.isInteger(record.timestamp));
      assert.equal(record.timestamp, clock.now().getTime());
    });

    test('a refunded one-time payment is TRANSACTION_STATUS_REFUNDED with an ONETIME_PAYMENT_REFUND of negated amounts', async () => {
      tick();
      const product = await v.product({
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      });
      const id = await v.buy(product.id, { email: 'ledger-refund@example.com', country: 'DE' });
      tick();
      const res = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(res.status, 200);
      assert.equal(res.json[0].invoiceLink, `http://opentill.test/sandbox/invoice/${res.json[0].hashId}`);

      const read = await v.api(`/v1/transaction/${id}`);
      assert.equal(read.json.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      const [payment, refund] = read.json.entries;
      assert.equal(read.json.entries.length, 2);
      assert.equal(payment.type, 'ONETIME_PAYMENT');
      assert.equal(refund.type, 'ONETIME_PAYMENT_REFUND');
      assert.equal(refund.id, res.json[0].id);
      assert.equal(payment.amountTotal, '22.02');
      assert.equal(refund.amountTotal, '-22.02');
      assert.equal(refund.taxAmount, '-3.52');
      assert.equal(refund.income, '-18.50');
      assert.equal(refund.affiliateIncome, '0.00');
      assert.equal(refund.taxRate, '0.19');
      assert.equal(refund.currency, 'EUR');
    });

    test('a refund puts the transaction in the feed with CHANGED_STATUS_REFUNDED', async () => {
      const w = await t.newVendor('feed vendor');
      tick();
      const product = await w.product({ type: 'ONETIME' });
      const id = await w.buy(product.id);
      tick();
      assert.equal((await w.api(`/v1/refund-transaction/${id}`, { method: 'POST' })).status, 200);
      const feed = await w.api('/v1/changed-transactions');
      assert.equal(feed.status, 200);
      const element = feed.json.find((e: { id: string }) => e.id === id);
      assert.ok(element, 'refunded transaction is in the feed');
      assert.equal(element.changeStatus, 'CHANGED_STATUS_REFUNDED');
      assert.equal(element.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
    });

    test('refunding twice answers 400 naming the state and changes nothing', async () => {
      tick();
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      assert.equal((await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' })).status, 200);
      const before = await v.api(`/v1/transaction/${id}`);
      tick();
      const again = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(again.status, 400);
      assert.equal(again.json.error, 'INVALID_STATE');
      assert.match(again.json.message, /TRANSACTION_STATUS_REFUNDED/);
      const afterwards = await v.api(`/v1/transaction/${id}`);
      assert.deepEqual(afterwards.json, before.json);
    });

    test('refunding a subscription ends it: SUBSCRIPTION_REFUND, TRANSACTION_STATUS_REFUNDED, nextCharge null', async () => {
      tick();
      const product = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 9.99 }],
      });
      const bought = clock.now();
      const id = await v.buy(product.id, { email: 'sub-refund@example.com' });
      const listed = await v.api('/v1/transactions/sub-refund@example.com');
      assert.equal(listed.json[0].nextCharge, `2030-04-10T${bought.toISOString().slice(11)}`);
      tick();
      const res = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(res.status, 200);
      assert.equal(res.json[0].amountTotal, 9.99);
      const after = await v.api('/v1/transactions/sub-refund@example.com');
      assert.equal(after.json[0].transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(after.json[0].nextCharge, null);
      const entries = await entriesOf(id);
      assert.deepEqual(
        entries.map((e) => e.type),
        ['SUBSCRIPTION_PAYMENT', 'SUBSCRIPTION_REFUND'],
      );
      assert.equal(entries[1]!.amountTotal, '-9.99');
    });

    test('a subscription in trial has no payment: refund answers 400 and nothing changes', async () => {
      tick();
      const product = await v.product({ type: 'SUBSCRIPTION', trialDays: 14 });
      const id = await v.buy(product.id);
      const res = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(res.status, 400);
      assert.equal(res.json.error, 'INVALID_STATE');
      assert.match(res.json.message, /SUBSCRIPTION_STATUS_ACTIVE_TRIAL/);
      const read = await v.api(`/v1/transaction/${id}`);
      assert.equal(read.json.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL');
      assert.deepEqual(read.json.entries, []);
    });

    test('refunding a vaulted method refunds its latest unrefunded VAULTED_PAYMENT and keeps it active', async () => {
      tick();
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 5 }] });
      const id = await v.buy(product.id);
      for (const value of [10, 20]) {
        tick();
        const charge = await v.api(`/v1/charge-vaulted/${id}`, { body: { prices: [{ currency: 'USD', value }] } });
        assert.equal(charge.json.status, 'SUCCESS');
      }
      const refunded: number[] = [];
      for (let i = 0; i < 3; i++) {
        tick();
        const res = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
        assert.equal(res.status, 200);
        refunded.push(res.json[0].amountTotal);
        const read = await v.api(`/v1/transaction/${id}`);
        assert.equal(read.json.transactionStatus, 'VAULTED_STATUS_ACTIVE');
      }
      assert.deepEqual(refunded, [20, 10, 5]);
      const none = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(none.status, 400);
      assert.equal(none.json.error, 'INVALID_STATE');
      const entries = await entriesOf(id);
      assert.deepEqual(
        entries.map((e) => e.type),
        [
          'VAULTED_PAYMENT',
          'VAULTED_PAYMENT',
          'VAULTED_PAYMENT',
          'ONETIME_PAYMENT_REFUND',
          'ONETIME_PAYMENT_REFUND',
          'ONETIME_PAYMENT_REFUND',
        ],
      );
      assert.deepEqual(
        entries.slice(3).map((e) => e.amountTotal),
        ['-20.00', '-10.00', '-5.00'],
      );
    });

    test('20 simultaneous refunds of one payment produce exactly one refund', async () => {
      tick();
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 42 }] });
      const id = await v.buy(product.id);
      tick();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => v.api(`/v1/refund-transaction/${id}`, { method: 'POST' })),
      );
      // One refund; every other answer is true when given: already refunded (400), or the first
      // still being confirmed by the payment provider (409 PAYMENT_PENDING).
      assert.equal(answers.filter((a) => a.status === 200).length, 1);
      for (const other of answers.filter((a) => a.status !== 200)) {
        assert.ok(
          (other.status === 400 && other.json.error === 'INVALID_STATE') ||
            (other.status === 409 && other.json.error === 'PAYMENT_PENDING'),
          JSON.stringify(other.json),
        );
      }
      const entries = await entriesOf(id);
      assert.equal(entries.filter((e) => e.type === 'ONETIME_PAYMENT_REFUND').length, 1);
      assert.equal(entries.length, 2);
    });

    test('an unknown or foreign transaction id is 404', async () => {
      const other = await t.newVendor('other');
      const product = await other.product({ type: 'ONETIME' });
      const foreign = await other.buy(product.id);
      assert.equal((await v.api(`/v1/refund-transaction/${foreign}`, { method: 'POST' })).status, 404);
      assert.equal((await v.api('/v1/refund-transaction/TC-TR_UNKNOWN', { method: 'POST' })).status, 404);
      const read = await other.api(`/v1/transaction/${foreign}`);
      assert.equal(read.json.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
    });
  });
}
