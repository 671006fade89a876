import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hiddenFields } from '../../support/checkout-form.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Seats at the hosted checkout (docs/decisions.md §39): a per-seat product's form has a seats field
 * from its minimum to its maximum, preset by `?quantity=` (data-ts-quantity, tc.buy), its price lines
 * and its quote endpoint follow it, and the purchase is of that many seats. Out of range: a 4xx saying
 * what to choose, in the buyer's language, and nothing charged. US buyers without a ZIP code: no tax.
 */
for (const kind of await storeKinds()) {
  describe(`checkout seats (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let team: string;
    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor('Seat Seller');
      team = (
        await v.product({
          type: 'SUBSCRIPTION',
          name: 'Team plan',
          prices: [{ currency: 'USD', value: 10 }],
          seats: {
            minQuantity: 2,
            maxQuantity: 50,
            tiers: [{ fromQuantity: 10, prices: [{ currency: 'USD', value: 8 }] }],
          },
        })
      ).id;
    });
    after(() => t.close());

    const page = (query: string) => fetch(`${t.url}/sandbox/payment/product/${team}?country=US${query}`);
    const quote = async (query: string) => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${team}/quote?country=US${query}`);
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };

    test('the form has a seats field in the product’s range, preset by ?quantity=, and prices that many', async () => {
      const res = await page('&quantity=12');
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(
        html,
        /<input id="quantity" name="quantity" type="number" inputmode="numeric" min="2" max="50" step="1" required value="12">/,
      );
      assert.match(html, /data-testid="seats">12 seats × \$8\.00</);
      assert.match(html, /data-testid="total">\$96\.00</);
      assert.equal(hiddenFields(html).expectedTotal, '9600');
      // None preset: the minimum.
      assert.match(await (await page('')).text(), /id="quantity"[^>]*value="2"/);
    });

    test('the quote follows the quantity across the tier boundary: 9 × $10, 10 × $8', async () => {
      const nine = await quote('&quantity=9');
      const ten = await quote('&quantity=10');
      assert.deepEqual([nine.status, nine.json.netMinor, nine.json.quantity], [200, 9000, 9]);
      assert.deepEqual([ten.status, ten.json.netMinor, ten.json.quantity], [200, 8000, 10]);
      assert.match(String(ten.json.html), /10 seats × \$8\.00/);
    });

    test('a quantity out of range is a 400 saying what to choose, in the buyer’s language', async () => {
      for (const q of ['1', '51', 'abc', '2.5']) {
        const res = await quote(`&quantity=${q}`);
        assert.equal(res.status, 400, q);
        assert.deepEqual([res.json.error, res.json.message], ['INVALID_INPUT', 'Choose from 2 to 50 seats.']);
      }
      const german = await quote('&quantity=51&locale=de');
      assert.equal(german.json.message, 'Wählen Sie 2 bis 50 Plätze.');
      // Preset out of range: the form at the minimum, the field marked.
      const res = await page('&quantity=99');
      assert.equal(res.status, 400);
      const html = await res.text();
      assert.match(html, /id="quantity"[^>]*value="2" aria-invalid="true"/);
      assert.match(html, /id="quantity-error">Choose from 2 to 50 seats\.</);
    });

    test('paying the form buys the seats shown; a quantity changed past the shown total charges nothing', async () => {
      const html = await (await page('&quantity=10')).text();
      const pay = (fields: Record<string, string>) =>
        fetch(`${t.url}/sandbox/payment/product/${team}?country=US`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            ...hiddenFields(html),
            email: 'seats@example.com',
            country: 'US',
            cardNumber: '4242424242424242',
            cardExpiry: '12/34',
            cardCvc: '123',
            ...fields,
          }),
        });
      const out = await pay({ quantity: '60' });
      assert.equal(out.status, 400);
      assert.match(await out.text(), /id="quantity-error">Choose from 2 to 50 seats\./);
      const other = await pay({ quantity: '11', token: 'seats-token-other-000001' });
      assert.equal(other.status, 409, 'another quantity than the total shown was for');
      assert.deepEqual((await v.api('/v1/transactions/seats@example.com')).json, []);
      const done = await pay({ quantity: '10' });
      assert.equal(done.status, 200, await done.text());
      const [bought] = (await v.api('/v1/transactions/seats@example.com')).json as Record<string, unknown>[];
      assert.deepEqual([bought?.quantity, bought?.netPrice], [10, 80]);
    });

    test('customize-product sells a fixed quantity at its prices per seat; out of range is refused', async () => {
      const link = await v.api(`/v1/customize-product/${team}`, {
        body: { prices: [{ currency: 'USD', value: 7 }], quantity: 25 },
      });
      assert.equal(link.status, 200, link.text);
      const html = await (await fetch(`${t.url}${new URL(link.json.link).pathname}?country=US&quantity=3`)).text();
      assert.doesNotMatch(html, /id="quantity"/, 'the link fixes the quantity: no field');
      assert.match(html, /data-testid="seats">25 seats × \$7\.00</);
      assert.match(html, /data-testid="total">\$175\.00</);
      const refused = await v.api(`/v1/customize-product/${team}`, {
        body: { prices: [{ currency: 'USD', value: 7 }], quantity: 51 },
      });
      assert.deepEqual([refused.status, refused.json.error], [400, 'INVALID_INPUT']);
      const plain = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] });
      const single = await v.api(`/v1/customize-product/${plain.id}`, {
        body: { prices: [{ currency: 'USD', value: 5 }], quantity: 2 },
      });
      assert.deepEqual([single.status, single.json.error], [400, 'INVALID_INPUT']);
    });
  });
}
