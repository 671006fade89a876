import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const clock = fixedClock(new Date('2030-07-01T10:00:00.000Z'));
const tick = () => clock.advance(1000);

const DECLINED_CARD = { number: '4000000000000002', expMonth: 12, expYear: 2035 };
const EXPIRED_CARD = { number: '4000000000000069', expMonth: 12, expYear: 2035 };
const USD_EUR = [
  { currency: 'USD', value: 20 },
  { currency: 'EUR', value: 18.5 },
];

for (const kind of await storeKinds()) {
  describe(`charge-vaulted (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const vaulted = async (input: Parameters<TestVendor['buy']>[1] = {}) => {
      tick();
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      return v.buy(product.id, input);
    };
    const charge = (id: string, prices: unknown, headers?: Record<string, string>) =>
      v.api(`/v1/charge-vaulted/${id}`, { body: { prices }, headers });
    const read = async (id: string) => (await v.api(`/v1/transaction/${id}`)).json;

    test('a customer in Germany is charged the listed EUR price with 19% VAT', async () => {
      const id = await vaulted({ country: 'DE' });
      tick();
      const res = await charge(id, USD_EUR);
      assert.equal(res.status, 200);
      assert.equal(res.json.status, 'SUCCESS');
      assert.equal(res.json.deactivation, false);
      assert.equal(res.json.currency, 'EUR');
      assert.equal(res.json.netValue, 18.5);
      assert.equal(res.json.netValueS, '18.50');
      assert.equal(res.json.taxValue, 3.52);
      assert.equal(res.json.taxValueS, '3.52');
      assert.equal(res.json.price, 22.02);
      assert.equal(res.json.priceS, '22.02');
      const after = await read(id);
      assert.equal(after.transactionStatus, 'VAULTED_STATUS_ACTIVE');
      assert.equal(after.lastCharge, clock.now().toISOString());
      assert.equal(after.entries.length, 1);
      assert.equal(after.entries[0].type, 'VAULTED_PAYMENT');
      assert.equal(after.entries[0].amountTotal, '22.02');
      assert.equal(after.entries[0].taxAmount, '3.52');
      assert.equal(after.entries[0].currency, 'EUR');
    });

    test('a customer in California is charged the USD price with 8.25% sales tax', async () => {
      const id = await vaulted({ country: 'US', region: 'CA' });
      const res = await charge(id, [
        { currency: 'USD', value: 20 },
        { currency: 'JPY', value: 3000 },
      ]);
      assert.equal(res.json.status, 'SUCCESS');
      assert.equal(res.json.currency, 'USD');
      assert.equal(res.json.netValue, 20);
      assert.equal(res.json.netValueS, '20.00');
      assert.equal(res.json.taxValue, 1.65);
      assert.equal(res.json.taxValueS, '1.65');
      assert.equal(res.json.price, 21.65);
      assert.equal(res.json.priceS, '21.65');
    });

    test('a missing EUR price is converted from USD at the reference rate', async () => {
      const id = await vaulted({ country: 'DE' });
      const res = await charge(id, [{ currency: 'USD', value: 20 }]);
      assert.equal(res.json.status, 'SUCCESS');
      assert.equal(res.json.currency, 'EUR');
      assert.equal(res.json.netValueS, '17.24'); // 20 / 1.16 = 17.2413...
      assert.equal(res.json.taxValueS, '3.28'); // 19% of 17.24 = 3.2756
      assert.equal(res.json.priceS, '20.52');
    });

    test('prices sent as a serialized string work like the array', async () => {
      const id = await vaulted({ country: 'DE' });
      const res = await charge(id, JSON.stringify(USD_EUR));
      assert.equal(res.status, 200);
      assert.equal(res.json.status, 'SUCCESS');
      assert.equal(res.json.priceS, '22.02');
    });

    test('a declined card answers 200 FAILED, records no payment and stays active', async () => {
      const id = await vaulted({ card: DECLINED_CARD });
      assert.equal((await read(id)).transactionStatus, 'VAULTED_STATUS_ACTIVE');
      const res = await charge(id, [{ currency: 'USD', value: 10 }]);
      assert.equal(res.status, 200);
      assert.equal(res.json.status, 'FAILED');
      assert.equal(res.json.deactivation, false);
      const after = await read(id);
      assert.deepEqual(after.entries, []);
      assert.equal(after.transactionStatus, 'VAULTED_STATUS_ACTIVE');
      assert.equal(after.lastCharge, null);
    });

    test('an expired card answers FAILED with deactivation and deactivates the method', async () => {
      const w = await t.newVendor('expired');
      tick();
      const product = await w.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await w.buy(product.id, { card: EXPIRED_CARD });
      await w.api('/v1/changed-transactions');
      await w.api(`/v1/changed-transactions/${id}`, { method: 'POST' });
      tick();
      const res = await w.api(`/v1/charge-vaulted/${id}`, { body: { prices: [{ currency: 'USD', value: 10 }] } });
      assert.equal(res.status, 200);
      assert.equal(res.json.status, 'FAILED');
      assert.equal(res.json.deactivation, true);
      const after = (await w.api(`/v1/transaction/${id}`)).json;
      assert.equal(after.transactionStatus, 'VAULTED_STATUS_INACTIVE');
      assert.deepEqual(after.entries, []);
      const feed = (await w.api('/v1/changed-transactions')).json;
      assert.equal(feed.length, 1);
      assert.equal(feed[0].changeStatus, 'CHANGED_STATUS_VAULTED_DEACTIVATION');
      const again = await w.api(`/v1/charge-vaulted/${id}`, { body: { prices: [{ currency: 'USD', value: 10 }] } });
      assert.equal(again.status, 400);
    });

    test('a retry with the same Idempotency-Key replays the answer and charges once', async () => {
      const id = await vaulted();
      const first = await charge(id, [{ currency: 'USD', value: 7 }], { 'idempotency-key': 'charge-1' });
      const second = await charge(id, [{ currency: 'USD', value: 7 }], { 'idempotency-key': 'charge-1' });
      assert.equal(first.status, 200);
      assert.equal(second.text, first.text);
      assert.equal((await read(id)).entries.length, 1);
    });

    test('prices without USD, a one-time transaction, and an unknown id are refused', async () => {
      const id = await vaulted();
      const noUsd = await charge(id, [{ currency: 'EUR', value: 10 }]);
      assert.equal(noUsd.status, 400);
      assert.equal(noUsd.json.error, 'USD_PRICE_REQUIRED');
      const product = await v.product({ type: 'ONETIME' });
      const onetime = await v.buy(product.id);
      const wrongType = await charge(onetime, [{ currency: 'USD', value: 10 }]);
      assert.equal(wrongType.status, 400);
      assert.equal(wrongType.json.error, 'INVALID_STATE');
      assert.equal((await charge('TC-TR_UNKNOWN', [{ currency: 'USD', value: 10 }])).status, 404);
      assert.deepEqual((await read(id)).entries, []);
    });
  });

  describe(`customize-product (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const customize = (productId: string, body: Record<string, unknown>) =>
      v.api(`/v1/customize-product/${productId}`, { body });
    /** The link's path on the test server: the configured sandbox URL is http://opentill.test/sandbox. */
    const open = (link: string) => {
      assert.ok(link.startsWith('http://opentill.test/'), link);
      return fetch(`${t.url}${link.slice('http://opentill.test'.length)}`);
    };

    test('answers a payment link with customizedProductId and customProductId, and the link opens', async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Customizable' });
      const res = await customize(product.id, { prices: [{ currency: 'USD', value: 15 }] });
      assert.equal(res.status, 200);
      assert.match(res.json.customizedProductId, /^PC_[0-9A-Z]{30}$/);
      assert.equal(res.json.customProductId, res.json.customizedProductId);
      assert.equal(res.json.link, `http://opentill.test/sandbox/payment/product/${res.json.customizedProductId}`);
      const page = await open(res.json.link);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const html = await page.text();
      assert.match(html, /Customizable/);
      assert.match(html, /\$15\.00/);
    });

    test('prices as a serialized string are accepted', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const res = await customize(product.id, { prices: JSON.stringify([{ currency: 'USD', value: 12.5 }]) });
      assert.equal(res.status, 200);
      assert.match(await (await open(res.json.link)).text(), /\$12\.50/);
    });

    test('with expiresIn the link answers 410 once the time has passed', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const res = await customize(product.id, { prices: [{ currency: 'USD', value: 15 }], expiresIn: 60 });
      assert.equal(res.status, 200);
      clock.advance(59_000);
      assert.equal((await open(res.json.link)).status, 200);
      clock.advance(2_000);
      const expired = await open(res.json.link);
      assert.equal(expired.status, 410);
      assert.match(await expired.text(), /expired/);
      await assert.rejects(
        t.services.purchases.purchase(v.scope(), {
          productId: res.json.customizedProductId,
          email: 'late@example.com',
          country: 'US',
          card: { number: '4242424242424242', expMonth: 12, expYear: 2035 },
        }),
        (err: { code?: string }) => err.code === 'LINK_EXPIRED',
      );
    });

    test('a purchase of a customized product charges the customized prices', async () => {
      const product = await v.product({
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      });
      const res = await customize(product.id, {
        prices: [
          { currency: 'USD', value: 15 },
          { currency: 'EUR', value: 12 },
        ],
      });
      tick();
      const id = await v.buy(res.json.customizedProductId, { email: 'custom-buyer@example.com', country: 'DE' });
      const read = (await v.api(`/v1/transaction/${id}`)).json;
      assert.equal(read.productId, product.id);
      assert.equal(read.currency, 'EUR');
      assert.equal(read.netPriceS, '12.00');
      assert.equal(read.taxS, '2.28');
      assert.equal(read.netPriceInUSDS, '15.00');
      assert.equal(read.entries[0].amountTotal, '14.28');
      const us = await v.buy(res.json.customizedProductId, { email: 'custom-us@example.com', country: 'US' });
      assert.equal((await v.api(`/v1/transaction/${us}`)).json.entries[0].amountTotal, '15.00');
    });

    test('transactionIdToMigrate accepts an active subscription only', async () => {
      const sub = await v.product({ type: 'SUBSCRIPTION' });
      const active = await v.buy(sub.id);
      const ok = await customize(sub.id, { prices: [{ currency: 'USD', value: 30 }], transactionIdToMigrate: active });
      assert.equal(ok.status, 200);

      const onetimeProduct = await v.product({ type: 'ONETIME' });
      const onetime = await v.buy(onetimeProduct.id);
      const wrong = await customize(sub.id, {
        prices: [{ currency: 'USD', value: 30 }],
        transactionIdToMigrate: onetime,
      });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.json.error, 'INVALID_STATE');
      assert.match(wrong.json.message, /ONE_TIME_PAYMENT_STATUS_PAID/);

      const cancelled = await v.buy(sub.id);
      await v.api(`/v1/cancel-subscription/${cancelled}`, { method: 'POST' });
      const ended = await customize(sub.id, {
        prices: [{ currency: 'USD', value: 30 }],
        transactionIdToMigrate: cancelled,
      });
      assert.equal(ended.status, 400);
      assert.match(ended.json.message, /SUBSCRIPTION_STATUS_CANCELLED_PENDING/);

      const unknown = await customize(sub.id, {
        prices: [{ currency: 'USD', value: 30 }],
        transactionIdToMigrate: 'TC-TR_UNKNOWN',
      });
      assert.equal(unknown.status, 404);
    });

    test('a malformed userMail, a missing USD price, or bad expiresIn is 400', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const badMail = await customize(product.id, {
        prices: [{ currency: 'USD', value: 15 }],
        userMail: 'not-an-address',
      });
      assert.equal(badMail.status, 400);
      assert.equal(badMail.json.error, 'INVALID_EMAIL');
      const noUsd = await customize(product.id, { prices: [{ currency: 'EUR', value: 15 }] });
      assert.equal(noUsd.status, 400);
      assert.equal(noUsd.json.error, 'USD_PRICE_REQUIRED');
      for (const expiresIn of [0, -5]) {
        assert.equal(
          (await customize(product.id, { prices: [{ currency: 'USD', value: 15 }], expiresIn })).status,
          400,
        );
      }
      const good = await customize(product.id, {
        prices: [{ currency: 'USD', value: 15 }],
        userMail: 'meant-for@example.com',
        userFirstName: 'Ada',
      });
      assert.equal(good.status, 200);
    });

    test("another vendor's or an unknown product is 404", async () => {
      const other = await t.newVendor('other');
      const foreign = await other.product({ type: 'ONETIME' });
      assert.equal((await customize(foreign.id, { prices: [{ currency: 'USD', value: 1 }] })).status, 404);
      assert.equal((await customize('TC-PR_UNKNOWN', { prices: [{ currency: 'USD', value: 1 }] })).status, 404);
    });
  });
}
