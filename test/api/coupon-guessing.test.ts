import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * Coupon codes cannot be guessed through the public checkout (docs/decisions.md §14): after 10
 * codes that do not work, from one address for one product within 10 minutes, the checkout says to
 * try later and looks at no code until the oldest failure is 10 minutes old. Codes that work never
 * count. The test client names its address through a trusted proxy (X-Forwarded-For).
 */
const clock = fixedClock(new Date('2030-09-01T10:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`coupon guessing at the checkout (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, env: { TRUST_PROXY: '127.0.0.1' } }, (app, vendor) => ((t = app), (v = vendor)));

    /** A product at USD 20 with the coupon RIGHT10 (10% off). */
    async function productWithCoupon() {
      const product = await v.product({ type: 'ONETIME', name: 'Acme Pro', prices: [{ currency: 'USD', value: 20 }] });
      await t.services.coupons.create(v.scope(), { productId: product.id, code: 'RIGHT10', percentOff: 10 });
      return product.id;
    }
    const fromAddress = (address: string) => ({ 'x-forwarded-for': address });
    /** The checkout page in the sandbox priced for the US without a ZIP code (no tax): total 20.00 USD, or 18.00 with the coupon. */
    async function openPage(productId: string, address: string, coupon?: string) {
      const res = await fetch(
        `${t.url}/sandbox/payment/product/${productId}?country=US${coupon ? `&coupon=${coupon}` : ''}`,
        {
          headers: fromAddress(address),
        },
      );
      return pageOf(res);
    }
    async function submit(productId: string, address: string, fields: Record<string, string>) {
      const res = await fetch(`${t.url}/sandbox/payment/product/${productId}?country=US`, {
        method: 'POST',
        headers: { ...fromAddress(address), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ country: 'US', ...fields }),
      });
      return pageOf(res);
    }
    async function pageOf(res: Response) {
      const html = await res.text();
      const form = hiddenFields(html);
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        total: /data-testid="total">([^<]*)</.exec(html)?.[1],
        error: /role="alert" id="error">([^<]*)/.exec(html)?.[1],
        receipt: /id="receipt"/.test(html),
        form,
      };
    }

    test('after 10 wrong codes the page says to try later (429) and checks no code, not even a right one; the price without a coupon still shows', async () => {
      const productId = await productWithCoupon();
      for (let i = 1; i <= 10; i++) {
        const page = await openPage(productId, '10.0.0.1', `WRONG${i}`);
        assert.equal(page.status, 200, `attempt ${i}`);
        assert.match(page.error!, /not valid for this product/, `attempt ${i}`);
      }
      const blocked = await openPage(productId, '10.0.0.1', 'WRONG11');
      assert.equal(blocked.status, 429);
      assert.equal(blocked.retryAfter, '600');
      assert.match(blocked.error!, /Too many coupon codes .* try a coupon again in 10 minutes/);
      assert.equal(blocked.total, '$20.00');

      const right = await openPage(productId, '10.0.0.1', 'RIGHT10');
      assert.equal(
        right.status,
        429,
        'a right code gets the same answer while blocked, or the block would still answer guesses',
      );
      assert.equal(right.total, '$20.00');
      assert.equal(right.form.appliedCoupon, '');
      const plain = await openPage(productId, '10.0.0.1');
      assert.deepEqual(
        [plain.status, plain.total, plain.error],
        [200, '$20.00', undefined],
        'the page itself still works',
      );
    });

    test('the limit is per address and per product, and lifts 10 minutes after the oldest failure', async () => {
      const productId = await productWithCoupon();
      const otherProductId = await productWithCoupon();
      for (let i = 1; i <= 10; i++) {
        await openPage(productId, '10.0.0.2', `WRONG${i}`);
        if (i === 1) clock.advance(60_000);
      }
      assert.equal((await openPage(productId, '10.0.0.2', 'RIGHT10')).status, 429);

      const elsewhere = await openPage(productId, '10.0.0.3', 'RIGHT10');
      assert.deepEqual([elsewhere.status, elsewhere.total], [200, '$18.00'], 'another address');
      const other = await openPage(otherProductId, '10.0.0.2', 'RIGHT10');
      assert.deepEqual([other.status, other.total], [200, '$18.00'], 'another product');

      clock.advance(9 * 60_000 - 1000);
      assert.equal((await openPage(productId, '10.0.0.2', 'RIGHT10')).status, 429);
      clock.advance(1000); // the first failure is now 10 minutes old: one more try
      const lifted = await openPage(productId, '10.0.0.2', 'RIGHT10');
      assert.deepEqual([lifted.status, lifted.total], [200, '$18.00']);
      assert.equal((await openPage(productId, '10.0.0.2', 'WRONG11')).status, 200);
      assert.equal((await openPage(productId, '10.0.0.2', 'WRONG12')).status, 429);
    });

    test('codes that work never count', async () => {
      const productId = await productWithCoupon();
      for (let i = 0; i < 25; i++) assert.equal((await openPage(productId, '10.0.0.4', 'right10')).total, '$18.00');
      for (let i = 1; i <= 10; i++)
        assert.equal((await openPage(productId, '10.0.0.4', `WRONG${i}`)).status, 200, `attempt ${i}`);
      assert.equal((await openPage(productId, '10.0.0.4', 'WRONG11')).status, 429);
    });

    test('codes typed into the form count too; while blocked a payment with a coupon is refused and charges nothing', async () => {
      const productId = await productWithCoupon();
      const shown = await openPage(productId, '10.0.0.5', 'RIGHT10');
      assert.equal(shown.total, '$18.00');
      for (let i = 1; i <= 9; i++) {
        const typed = await submit(productId, '10.0.0.5', {
          ...shown.form,
          coupon: `WRONG${i}`,
          email: 'typed@example.com',
        });
        assert.deepEqual([typed.status, typed.total], [200, '$20.00'], `attempt ${i}`);
      }
      // A form whose coupon was changed by hand to one never shown counts as well.
      const card = {
        cardNumber: '4242424242424242',
        cardExpiry: '12/34',
        cardCvc: '123',
        email: 'blocked@example.com',
      };
      const forged = await submit(productId, '10.0.0.5', {
        ...shown.form,
        appliedCoupon: 'WRONG10',
        coupon: 'WRONG10',
        ...card,
      });
      assert.equal(forged.status, 400);
      assert.equal(forged.receipt, false);

      const paying = await submit(productId, '10.0.0.5', { ...shown.form, coupon: 'RIGHT10', ...card });
      assert.equal(paying.status, 429);
      assert.equal(paying.total, '$20.00');
      assert.match(paying.error!, /try a coupon again/);
      assert.deepEqual((await v.api('/v1/transactions/blocked%40example.com')).json, [], 'nothing charged');

      const fullPrice = await submit(productId, '10.0.0.5', { ...paying.form, ...card });
      assert.equal(fullPrice.status, 200, fullPrice.error);
      assert.equal(fullPrice.receipt, true);
      const [paid] = (await v.api('/v1/transactions/blocked%40example.com')).json;
      assert.equal(paid.netPrice, 20, 'paid without the coupon');
    });

    test('the public checkout start answers 429 with Retry-After once the address is blocked', async () => {
      const productId = await productWithCoupon();
      const start = (coupon: string) =>
        fetch(`${t.url}/sandbox/public/v1/checkout`, {
          method: 'POST',
          headers: { ...fromAddress('10.0.0.6'), 'content-type': 'application/json' },
          body: JSON.stringify({ productId, coupon, country: 'US' }),
        });
      assert.equal((await start('RIGHT10')).status, 200);
      for (let i = 1; i <= 10; i++) assert.equal((await start(`WRONG${i}`)).status, 400, `attempt ${i}`);
      const blocked = await start('RIGHT10');
      assert.equal(blocked.status, 429);
      assert.equal(blocked.headers.get('retry-after'), '600');
      assert.equal(((await blocked.json()) as { error: string }).error, 'RATE_LIMITED');
      assert.equal(
        (await openPage(productId, '10.0.0.6', 'RIGHT10')).status,
        429,
        'the page and the API share one limit',
      );
    });
  });
}
