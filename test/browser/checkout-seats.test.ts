import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * Seats in Chromium (docs/decisions.md §39): a vendor's button with `data-ts-quantity` opens the checkout
 * with that many seats, `tc.buy(id, {quantity})` too; changing the seats field re-prices the lines and the
 * Pay button across the tier boundary, and the purchase is of the seats shown. Axe-clean; screenshots at
 * desktop and phone size go to scratch/shots/seats-checkout-*.png.
 */
const SHOTS = new URL('../../scratch/shots/', import.meta.url).pathname;

describe('seats at the checkout, in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let shop: Server;
  let origin: string;
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Seat Seller');
    productId = (
      await v.product({
        type: 'SUBSCRIPTION',
        name: 'Team plan',
        prices: [{ currency: 'USD', value: 10 }],
        seats: {
          minQuantity: 1,
          maxQuantity: 50,
          tiers: [{ fromQuantity: 10, prices: [{ currency: 'USD', value: 8 }] }],
        },
      })
    ).id;
    shop = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
        <script src="${t.url}/latest/widget.sandbox.min.js"></script></head><body><h1>Team plan</h1>
        <button id="buy" data-ts-button data-ts-product="${productId}" data-ts-country="US" data-ts-quantity="12">Buy 12 seats</button></body></html>`);
    });
    await new Promise<void>((done) => shop.listen(0, '127.0.0.1', done));
    origin = `http://localhost:${(shop.address() as AddressInfo).port}`;
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    shop?.close();
    await t?.close();
  });

  test('data-ts-quantity opens the checkout with those seats; changing them re-prices; paying buys them', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await page.goto(`${origin}/`);
    await page.click('#buy');
    const checkout = page.frameLocator('iframe[title="Checkout"]');
    await checkout.locator('#quantity').waitFor();
    assert.equal(await checkout.locator('#quantity').inputValue(), '12');
    assert.equal(await checkout.locator('[data-testid="seats"]').textContent(), '12 seats × $8.00');
    await checkout.locator('#quantity').fill('9');
    await checkout.locator('#quantity').dispatchEvent('change');
    await checkout.locator('[data-testid="seats"]', { hasText: '9 seats × $10.00' }).waitFor();
    assert.equal(await checkout.locator('[data-testid="total"]').textContent(), '$90.00');
    assert.equal(await checkout.locator('#pay').textContent(), 'Pay $90.00');
    await checkout.locator('#email').fill('nine@example.com');
    await checkout.locator('#cardNumber').fill('4242 4242 4242 4242');
    await checkout.locator('#cardExpiry').fill('12/34');
    await checkout.locator('#cardCvc').fill('123');
    await checkout.locator('#pay').click();
    await checkout.locator('#receipt').waitFor();
    const [bought] = (await v.api('/v1/transactions/nine@example.com')).json as Record<string, unknown>[];
    assert.deepEqual([bought?.quantity, bought?.netPrice], [9, 90]);
    await page.close();
  });

  test('tc.buy(id, {quantity}) presets the seats; out of range it is refused before anything opens', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await page.goto(`${origin}/`);
    const buy = (quantity: number) =>
      page.evaluate(
        ([id, q]) =>
          (window as unknown as { tc: { buy(id: string, o: object): Promise<void> } }).tc
            .buy(id as string, { quantity: q, country: 'US' })
            .then(
              () => 'opened',
              (e: Error) => e.message,
            ),
        [productId, quantity] as const,
      );
    assert.match(await buy(51), /quantity must be from 1 to 50/);
    assert.equal(await buy(10), 'opened');
    const checkout = page.frameLocator('iframe[title="Checkout"]');
    assert.equal(await checkout.locator('#quantity').inputValue(), '10');
    assert.equal(await checkout.locator('[data-testid="total"]').textContent(), '$80.00');
    await page.close();
  });

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`the checkout with its seats field is axe-clean at ${size} size`, async () => {
      const context = await browser.newContext({ viewport, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US&quantity=12`);
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, `${SHOTS}seats-checkout-${size}.png`, { fullPage: true });
      // Out of range: the field marked, still axe-clean.
      await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US&quantity=99`);
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, `${SHOTS}seats-checkout-invalid-${size}.png`, { fullPage: true });
      await context.close();
    });
  }
});
