import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { unconfiguredGateway } from '../../src/gateways/unconfigured-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

const clock = fixedClock(new Date('2030-05-01T09:00:00.000Z'));

/** A checkout page as a browser gets it, and the form fields it would send back. */
interface Page {
  status: number;
  html: string;
  headers: Headers;
  form: Record<string, string>;
}

for (const kind of await storeKinds()) {
  describe(`public price API and hosted checkout (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let productId: string;
    before(async () => {
      t = await startTestApp(kind, { clock });
      v = await t.newVendor('Acme Software');
      productId = (
        await v.product({
          type: 'ONETIME',
          name: 'Acme Pro',
          prices: [
            { currency: 'USD', value: 20 },
            { currency: 'EUR', value: 18.5 },
          ],
          issuesLicences: true,
        } as never)
      ).id;
    });
    after(() => t.close());

    const price = async (id: string, query = '', prefix = '/sandbox') => {
      const res = await fetch(`${t.url}${prefix}/public/v1/price/${id}${query}`, {
        headers: { origin: 'https://shop.vendor.example' },
      });
      return {
        status: res.status,
        cors: res.headers.get('access-control-allow-origin'),
        json: (await res.json()) as any,
      };
    };
    const openPage = async (id: string, query = ''): Promise<Page> => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${id}${query}`);
      const html = await res.text();
      const form = hiddenFields(html);
      return { status: res.status, html, headers: res.headers, form };
    };
    const pay = async (id: string, fields: Record<string, string>, query = '') => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${id}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
      return { status: res.status, html: await res.text() };
    };
    const card = (number = '4242424242424242') => ({ cardNumber: number, cardExpiry: '12/34', cardCvc: '123' });
    const purchasesOf = async (email: string) =>
      (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as any[];
    const alertOf = (html: string) => /role="alert" id="error">([^<]*)/.exec(html)?.[1];

    test('prices: VAT in Germany, state sales tax by US ZIP code, no tax in Hong Kong', async () => {
      const de = await price(productId, '?country=DE');
      assert.equal(de.status, 200);
      assert.equal(de.cors, '*');
      assert.deepEqual(
        {
          currency: de.json.currency,
          price: de.json.price,
          priceNet: de.json.priceNet,
          tax: de.json.tax,
          taxName: de.json.taxName,
          taxRate: de.json.taxRate,
        },
        { currency: 'EUR', price: 22.02, priceNet: 18.5, tax: 3.52, taxName: 'VAT', taxRate: 0.19 },
      );
      assert.equal(de.json.priceS, '22.02');

      const ca = await price(productId, '?country=US&zip=94103');
      assert.deepEqual(
        [ca.json.currency, ca.json.priceNet, ca.json.tax, ca.json.price, ca.json.taxName, ca.json.taxRate],
        ['USD', 20, 1.65, 21.65, 'Sales tax', 0.0825],
      );
      const ny = await price(productId, '?country=US&zip=10001');
      assert.equal(ny.json.taxRate, 0.04);

      const hk = await price(productId, '?country=HK');
      assert.deepEqual(
        [hk.json.currency, hk.json.tax, hk.json.price, hk.json.taxName],
        ['HKD', 0, hk.json.priceNet, ''],
      );
      assert.ok(hk.json.priceNet > 100, 'converted from USD at the reference rate');
    });

    test('the price endpoint refuses unknown products and countries with {error, message}, and names no vendor', async () => {
      const unknown = await price('TC-PR_00000000000000000000000000');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.error, 'NOT_FOUND');
      assert.equal(unknown.cors, '*');
      assert.equal((await price(productId, '?country=XX')).status, 400);
      assert.equal((await price(productId, '?currency=EUR')).status, 400, 'no other query parameters');
      const body = JSON.stringify((await price(productId, '?country=DE')).json);
      assert.doesNotMatch(body, /TC-VE_|vendor/i);
    });

    test('production prices by address; only an address with no country (loopback) takes the named one, else counts as the US', async () => {
      const prodProduct = await v.product(
        {
          type: 'ONETIME',
          prices: [
            { currency: 'USD', value: 10 },
            { currency: 'EUR', value: 9 },
          ],
        },
        'production',
      );
      const res = await price(prodProduct.id, '?country=DE', '');
      assert.equal(res.status, 200);
      assert.deepEqual([res.json.country, res.json.currency], ['DE', 'EUR']);
      const unnamed = await price(prodProduct.id, '', '');
      assert.deepEqual([unnamed.json.country, unnamed.json.currency], ['US', 'USD']);
      // (An address with a known country wins over the named one: test/api/business-buyers.test.ts.)
      assert.equal((await price(prodProduct.id)).status, 404, 'a production product is not in the sandbox');
    });

    test('checkout start answers the page URL with the prefill; unknown products and browser-sent prices are refused', async () => {
      const start = async (body: unknown) => {
        const res = await fetch(`${t.url}/sandbox/public/v1/checkout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'https://shop.vendor.example' },
          body: JSON.stringify(body),
        });
        return {
          status: res.status,
          cors: res.headers.get('access-control-allow-origin'),
          json: (await res.json()) as any,
        };
      };
      const ok = await start({
        productId,
        email: 'pre@fill.test',
        firstName: 'Ada',
        zipCode: '94103',
        nonEditableEmail: true,
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.cors, '*');
      const url = new URL(ok.json.url);
      assert.equal(url.pathname, `/sandbox/payment/product/${productId}`);
      assert.deepEqual(Object.fromEntries(url.searchParams), {
        email: 'pre@fill.test',
        firstName: 'Ada',
        zipCode: '94103',
        nonEditableEmail: 'true',
      });

      const unknown = await start({ productId: 'TC-PR_00000000000000000000000000' });
      assert.equal(unknown.status, 404);
      assert.match(unknown.json.message, /not found/);
      assert.equal((await start({ productId, price: 1 })).status, 400);
      assert.equal((await start({ productId, email: 'not-an-email' })).status, 400);
      assert.equal((await start({ productId, payload: 'x'.repeat(5000) })).status, 400);
    });

    test('the page shows net, tax with its name and rate, and total; the prefill; and the sandbox test cards', async () => {
      const page = await openPage(
        productId,
        '?country=DE&email=locked@example.com&nonEditableEmail=true&firstName=Ada',
      );
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /text\/html/);
      assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
      assert.match(page.html, /data-testid="net">€18\.50/);
      assert.match(page.html, /VAT \(19%\)<\/td><td data-testid="tax">€3\.52/);
      assert.match(page.html, /data-testid="total">€22\.02/);
      assert.match(
        page.html,
        /id="email" name="email" type="email" autocomplete="email" required value="locked@example.com" readonly/,
      );
      assert.match(page.html, /id="firstName" name="firstName" autocomplete="given-name" value="Ada"/);
      assert.match(page.html, /4242 4242 4242 4242/);
      assert.equal(page.form.expectedCurrency, 'EUR');
      assert.equal(page.form.expectedTotal, '2202');
    });

    test('paying with the success card creates the transaction the API lists, at the price shown, once', async () => {
      const page = await openPage(productId, '?country=DE');
      const fields = { ...page.form, email: 'buyer@example.com', country: 'DE', ...card() };
      const paid = await pay(productId, fields);
      assert.equal(paid.status, 200, alertOf(paid.html));
      assert.match(paid.html, /Payment of <strong>€22\.02<\/strong> received/);
      assert.match(paid.html, /data-testid="licence">[0-9A-Z]{5}(-[0-9A-Z]{5}){4}</);
      // The receipt links the invoice, relative to the page.
      const href = /<a href="([^"]+)"[^>]*data-testid="invoice">/.exec(paid.html)?.[1];
      assert.ok(href, 'the receipt links the invoice');
      const invoice = await fetch(new URL(href, `${t.url}/sandbox/payment/product/${productId}`));
      assert.equal(invoice.status, 200);
      assert.equal(invoice.headers.get('content-type'), 'application/pdf');
      // The same form sent again (a double click, a reload) shows the receipt and pays nothing more.
      const again = await pay(productId, fields);
      assert.equal(again.status, 200);
      assert.match(again.html, /received/);
      const listed = await purchasesOf('buyer@example.com');
      assert.equal(listed.length, 1);
      assert.deepEqual(
        [listed[0].currency, listed[0].netPrice, listed[0].tax, listed[0].country, listed[0].transactionStatus],
        ['EUR', 18.5, 3.52, 'DE', 'ONE_TIME_PAYMENT_STATUS_PAID'],
      );
      const entries = (await v.api(`/v1/transaction/${listed[0].id}`)).json.entries;
      assert.equal(entries.length, 1);
      assert.equal(entries[0].amountTotal, '22.02');
    });

    test('a declined card shows a clear message and creates no transaction; a different card then pays', async () => {
      const page = await openPage(productId, '?country=DE');
      const declined = await pay(productId, {
        ...page.form,
        email: 'declined@example.com',
        country: 'DE',
        ...card('4000000000000002'),
      });
      assert.equal(declined.status, 402);
      assert.match(alertOf(declined.html)!, /declined/);
      assert.deepEqual(await purchasesOf('declined@example.com'), []);
      const retry = await pay(productId, { ...page.form, email: 'declined@example.com', country: 'DE', ...card() });
      assert.equal(retry.status, 200, alertOf(retry.html));
      assert.equal((await purchasesOf('declined@example.com')).length, 1);
    });

    test('a total that differs from the server price is refused and charges nothing', async () => {
      const page = await openPage(productId, '?country=DE');
      const tamperings: Record<string, string>[] = [
        { expectedTotal: '100' },
        { expectedCurrency: 'USD' },
        { country: 'US' },
        { expectedTotal: 'abc' },
      ];
      for (const tampered of tamperings) {
        const res = await pay(productId, {
          ...page.form,
          email: 'tamper@example.com',
          country: 'DE',
          ...card(),
          ...tampered,
          token: `tamper-${Object.keys(tampered)[0]}-0123456789`,
        });
        assert.ok([400, 409].includes(res.status), `${JSON.stringify(tampered)}: ${res.status}`);
        assert.ok(alertOf(res.html));
      }
      assert.deepEqual(await purchasesOf('tamper@example.com'), []);
    });

    test('bad form input re-renders the form with a message and charges nothing', async () => {
      const page = await openPage(productId, '?country=DE');
      const cases: Record<string, string>[] = [
        { email: 'not-an-email' },
        { cardExpiry: '13' },
        { cardCvc: '' },
        { cardNumber: '1234' },
        { token: 'short' },
      ];
      for (const bad of cases) {
        const res = await pay(productId, {
          ...page.form,
          email: 'bad-input@example.com',
          country: 'DE',
          ...card(),
          ...bad,
        });
        assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(bad)}: ${res.status}`);
        assert.ok(alertOf(res.html), JSON.stringify(bad));
      }
      const garbage = await fetch(`${t.url}/sandbox/payment/product/${productId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '%%%&&&==',
      });
      assert.equal(garbage.status, 400);
      assert.deepEqual(await purchasesOf('bad-input@example.com'), []);
    });

    test('a customized product locks its e-mail, charges its own prices, and says when its link expired', async () => {
      const res = await v.api(`/v1/customize-product/${productId}`, {
        body: { prices: [{ currency: 'USD', value: 5 }], userMail: 'only@example.com', expiresIn: 600 },
      });
      assert.equal(res.status, 200, res.text);
      const id = res.json.customizedProductId as string;
      const page = await openPage(id, '?country=HK&email=other@example.com');
      assert.equal(page.status, 200);
      assert.match(page.html, /value="only@example.com" readonly/);
      const other = await pay(id, { ...page.form, email: 'other@example.com', country: 'HK', ...card() });
      assert.equal(other.status, 400);
      const paid = await pay(id, { ...page.form, email: 'only@example.com', country: 'HK', ...card() });
      assert.equal(paid.status, 200, alertOf(paid.html));
      const listed = await purchasesOf('only@example.com');
      assert.equal(listed.length, 1);
      assert.equal(listed[0].netPriceInUSD, 5);

      clock.advance(601_000);
      const expired = await openPage(id);
      assert.equal(expired.status, 410);
      assert.match(expired.html, /This link has expired/);
      assert.equal(
        (
          await pay(id, {
            ...page.form,
            email: 'only@example.com',
            country: 'HK',
            ...card(),
            token: 'after-expiry-0123456789',
          })
        ).status,
        410,
      );
    });

    test('a subscription with a trial starts the trial; an unknown product page is 404', async () => {
      const sub = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        trialDays: 14,
        prices: [{ currency: 'USD', value: 9 }],
      } as never);
      const page = await openPage(sub.id, '?country=HK');
      assert.match(page.html, /Free for 14 days/);
      assert.match(page.html, /Start free trial/);
      const started = await pay(sub.id, { ...page.form, email: 'trial@example.com', country: 'HK', ...card() });
      assert.equal(started.status, 200, alertOf(started.html));
      assert.match(started.html, /free trial has started/);
      const [tx] = await purchasesOf('trial@example.com');
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL');
      assert.equal((await openPage('TC-PR_00000000000000000000000000')).status, 404);
    });

    test('a percentage coupon lowers the net price before tax, on the page and in the transaction', async () => {
      await t.services.coupons.create(v.scope(), { productId, code: 'launch25', percentOff: 25 });
      const page = await openPage(productId, '?country=DE&coupon=Launch25');
      assert.equal(page.status, 200);
      assert.match(page.html, /data-testid="list">€18\.50/);
      assert.match(page.html, /data-testid="discount">−€4\.63/); // 25% of 18.50 = 4.625, half up
      assert.match(page.html, /data-testid="net">€13\.87/);
      assert.match(page.html, /data-testid="tax">€2\.64/); // 19% of 13.87 = 2.6353
      assert.match(page.html, /data-testid="total">€16\.51/);
      assert.equal(page.form.appliedCoupon, 'Launch25');
      const paid = await pay(productId, {
        ...page.form,
        coupon: 'Launch25',
        email: 'coupon@example.com',
        country: 'DE',
        ...card(),
      });
      assert.equal(paid.status, 200, alertOf(paid.html));
      const [tx] = await purchasesOf('coupon@example.com');
      assert.deepEqual([tx.netPrice, tx.tax, tx.netPriceInUSD], [13.87, 2.64, 15]);
    });

    test('a coupon typed into the form shows the new total first and charges only on the next submit', async () => {
      await t.services.coupons.create(v.scope(), {
        productId,
        code: 'FIVEOFF',
        amountsOff: [
          { currency: 'USD', value: 5 },
          { currency: 'EUR', value: 4.5 },
        ],
      });
      const page = await openPage(productId, '?country=DE');
      const shown = await pay(productId, {
        ...page.form,
        coupon: 'fiveoff',
        email: 'typed@example.com',
        country: 'DE',
        ...card(),
      });
      assert.equal(shown.status, 200);
      assert.match(shown.html, /Coupon FIVEOFF applied/);
      assert.match(shown.html, /data-testid="net">€14\.00/);
      assert.deepEqual(await purchasesOf('typed@example.com'), [], 'nothing charged yet');
      const form = hiddenFields(shown.html);
      const paid = await pay(productId, {
        ...form,
        coupon: 'fiveoff',
        email: 'typed@example.com',
        country: 'DE',
        ...card(),
      });
      assert.equal(paid.status, 200, alertOf(paid.html));
      assert.match(paid.html, /€16\.66/); // 14.00 + 19% (2.66)
    });

    test("unknown, expired, revoked and other products' coupons are refused with a message and the full price", async () => {
      const other = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 50 }] });
      await t.services.coupons.create(v.scope(), { productId: other.id, code: 'OTHERONLY', percentOff: 10 });
      await t.services.coupons.create(v.scope(), {
        productId,
        code: 'SHORTLIVED',
        percentOff: 10,
        expiresAt: new Date(clock.now().getTime() + 60_000).toISOString(),
      });
      const revoked = await t.services.coupons.create(v.scope(), { productId, code: 'GONE', percentOff: 10 });
      await t.services.coupons.revoke(v.scope(), revoked.id);
      clock.advance(61_000);
      for (const code of ['NOPE', 'OTHERONLY', 'SHORTLIVED', 'GONE']) {
        const page = await openPage(productId, `?country=DE&coupon=${code}`);
        assert.equal(page.status, 200, code);
        assert.match(alertOf(page.html)!, /coupon/i, code);
        assert.match(page.html, /data-testid="total">€22\.02/, code);
        const start = await fetch(`${t.url}/sandbox/public/v1/checkout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ productId, coupon: code, country: 'DE' }),
        });
        assert.equal(start.status, 400, code);
      }
      // A production coupon code is unknown in the sandbox.
      const prod = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 10 }] }, 'production');
      await t.services.coupons.create(v.scope('production'), { productId: prod.id, code: 'PRODONLY', percentOff: 50 });
      assert.ok((await t.services.coupons.list(v.scope())).every((c) => c.code !== 'PRODONLY'));
    });

    test('a vendor that turns conversion off is paid in its listed currencies, or USD', async () => {
      const strict = await t.newVendor('Strict Ltd');
      await t.services.catalog.updateVendorSettings(strict.vendor.id, { allowConversion: false });
      const usdOnly = await strict.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      const withEur = await strict.product({
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18 },
        ],
      });
      assert.deepEqual(
        [
          (await price(usdOnly.id, '?country=DE')).json.currency,
          (await price(usdOnly.id, '?country=DE')).json.priceNet,
        ],
        ['USD', 20],
      );
      assert.equal((await price(withEur.id, '?country=DE')).json.currency, 'EUR');
      assert.equal((await price(usdOnly.id, '?country=HK')).json.currency, 'USD');
      // Conversion stays on for everyone else.
      assert.equal((await price(productId, '?country=HK')).json.currency, 'HKD');
    });

    test('the API still refuses form bodies: the form parser lives only on the checkout pages', async () => {
      const res = await v.api('/v1/transaction/x', {
        rawBody: 'a=b',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(res.status, 415);
    });
  });
}

describe('production checkout', () => {
  test('without a processor it shows the closed shop before any field, in plain words, refuses a posted form, and records nothing', async () => {
    const t = await startTestApp('sqlite', { gateways: { production: unconfiguredGateway } });
    try {
      const v = await t.newVendor();
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 10 }] }, 'production');
      const res = await fetch(`${t.url}/payment/product/${product.id}`);
      const html = await res.text();
      assert.equal(res.status, 503);
      assert.match(html, /<h1>This shop is not taking payments yet<\/h1>/);
      assert.match(html, /Nothing has been charged/);
      assert.doesNotMatch(html, /<form|<input|4242424242424242|Sandbox|STRIPE_|processor|operator/);
      // A form posted all the same (an old tab, a script): the closed shop again, nothing charged.
      const paid = await fetch(`${t.url}/payment/product/${product.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: 'a'.repeat(24),
          expectedCurrency: 'USD',
          expectedTotal: '1000',
          email: 'prod@example.com',
          cardNumber: '4242424242424242',
          cardExpiry: '12/34',
          cardCvc: '123',
        }),
      });
      assert.equal(paid.status, 503);
      const refused = await paid.text();
      assert.match(refused, /This shop is not taking payments yet/);
      assert.doesNotMatch(refused, /STRIPE_|<input/);
      assert.deepEqual((await v.api('/v1/transactions/prod%40example.com', { environment: 'production' })).json, []);
    } finally {
      await t.close();
    }
  });
});
