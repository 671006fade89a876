import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * The checkout's quote endpoint (/payment/product/{id}/quote): the price the page's script shows
 * when the buyer changes country, ZIP code or coupon, from the one pricing function. Bad input is
 * a 4xx `{error, message}`.
 */
for (const kind of await storeKinds()) {
  describe(`checkout quote endpoint (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let productId: string;
    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor('Acme Software');
      productId = (
        await v.product({
          type: 'ONETIME',
          name: 'Acme Pro',
          prices: [
            { currency: 'USD', value: 45 },
            { currency: 'EUR', value: 45 },
          ],
        })
      ).id;
    });
    after(() => t.close());

    const quote = async (query: string, id = productId) => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${id}/quote${query}`);
      return {
        status: res.status,
        type: res.headers.get('content-type') ?? '',
        json: (await res.json()) as Record<string, unknown>,
      };
    };

    test('tax and total per country and ZIP code, the same as the public price', async () => {
      const de = await quote('?country=DE');
      assert.equal(de.status, 200);
      assert.deepEqual(
        [
          de.json.currency,
          de.json.netMinor,
          de.json.taxMinor,
          de.json.totalMinor,
          de.json.taxName,
          de.json.taxRate,
          de.json.countryName,
        ],
        ['EUR', 4500, 855, 5355, 'VAT', '0.19', 'Germany'],
      );
      assert.equal(de.json.payLabel, 'Pay €53.55');
      assert.match(String(de.json.html), /data-testid="total">€53\.55</);
      const ca = await quote('?country=US&zipCode=94103');
      assert.deepEqual([ca.json.currency, ca.json.taxMinor, ca.json.totalMinor], ['USD', 371, 4871]);
      const hk = await quote('?country=HK');
      assert.equal(hk.json.taxMinor, 0);
      const pub = (await (await fetch(`${t.url}/sandbox/public/v1/price/${productId}?country=DE`)).json()) as {
        price: number;
      };
      assert.equal(pub.price * 100, de.json.totalMinor);
    });

    test('the page charges what the quote said: a form with the quoted total pays', async () => {
      const page = await (await fetch(`${t.url}/sandbox/payment/product/${productId}?country=US`)).text();
      const form = hiddenFields(page);
      const de = await quote('?country=DE');
      const res = await fetch(`${t.url}/sandbox/payment/product/${productId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...form,
          expectedCurrency: String(de.json.currency),
          expectedTotal: String(de.json.totalMinor),
          email: 'quoted@example.com',
          country: 'DE',
          cardNumber: '4242424242424242',
          cardExpiry: '12/34',
          cardCvc: '123',
        }),
      });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /id="receipt"[^>]*>Payment of <strong>€53\.55/);
    });

    test('bad input is a 4xx {error, message}; an unknown product is 404', async () => {
      for (const query of [
        '?country=XX',
        '?country=Germany',
        '?country=US&zipCode=1234',
        '?zipCode=%3Cscript%3E',
        `?coupon=${'A'.repeat(65)}`,
      ]) {
        const res = await quote(query);
        assert.equal(res.status, 400, query);
        assert.match(res.type, /^application\/json/);
        assert.deepEqual(Object.keys(res.json).sort(), ['error', 'message'], query);
        assert.equal(res.json.error, 'INVALID_INPUT');
      }
      const unknown = await quote('?country=DE', 'TC-PR_00000000000000000000000000');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.error, 'NOT_FOUND');
      assert.equal(typeof unknown.json.message, 'string');
    });

    test('an unknown coupon prices without it and says why', async () => {
      const res = await quote('?country=DE&coupon=NOPE');
      assert.equal(res.status, 200);
      assert.equal(res.json.coupon, null);
      assert.equal(typeof res.json.couponError, 'string');
      assert.equal(res.json.totalMinor, 5355);
    });
  });
}
