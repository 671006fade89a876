import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { unconfiguredGateway } from '../../src/gateways/unconfigured-gateway.ts';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The closed shop (docs/decisions.md §29), in Chromium at desktop and phone size: production with no
 * payment processor shows the buyer, before any field, that the shop is not taking payments yet, in a
 * buyer's words, as a page of its own and inside a vendor page's overlay (which it tells `ready`, so the
 * buyer closes it there). A problem page in the overlay has the Close button too. Axe-clean; screenshots
 * go to test-artifacts/checkout-closed-*.png and checkout-problem-overlay-*.png.
 */

describe('the production checkout while payments are off, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let vendor: { server: Server; origin: string };
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', {
      port,
      env: { BASE_URL: `http://127.0.0.1:${port}` },
      gateways: { production: unconfiguredGateway },
    });
    const v = await t.newVendor('Acme Software');
    productId = (
      await v.product({ type: 'ONETIME', name: 'Acme Pro', prices: [{ currency: 'USD', value: 20 }] }, 'production')
    ).id;
    const server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://localhost');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const frame = url.searchParams.get('frame');
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme</title>
      <script>window.heard=[];</script><script src="${t.url}/latest/widget.min.js"></script>
      <script>['checkout.opened','checkout.closed'].forEach(function(n){tc.on(n,function(e){heard.push(e.name)})});</script></head>
      <body style="font-family:sans-serif;margin:2rem"><h1>Acme Pro</h1><button id="buy" data-ts-button data-ts-product="${productId}">Buy now</button>
      ${frame ? `<iframe title="Framed" src="${frame.replace(/"/g, '&quot;')}" style="width:100%;height:400px"></iframe>` : ''}</body></html>`);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    vendor = { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
    browser = await sharedChromium();
  });

  /** A page in a context of its own (axe opens pages beside it). */
  const newPage = async (options: Parameters<Browser['newContext']>[0]) =>
    (await browser.newContext(options)).newPage();

  after(async () => {
    await browser?.close();
    vendor?.server.close();
    await t?.close();
  });

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`the payment link shows the closed shop before any field, in a buyer's words (${size})`, async () => {
      const page = await newPage({ viewport, locale: 'en-US' });
      const res = await page.goto(`${t.url}/payment/product/${productId}`);
      assert.equal(res!.status(), 503);
      assert.equal(await page.locator('h1').textContent(), 'This shop is not taking payments yet');
      assert.equal(await page.locator('input, select, textarea, form').count(), 0, 'no field at all');
      const text = await page.locator('main').innerText();
      assert.match(text, /Acme Software[^]*Acme Pro[^]*Nothing has been charged/);
      assert.doesNotMatch(text, /STRIPE|processor|operator|configur/i, 'no operator jargon');
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, `${ARTIFACTS}checkout-closed-${size}.png`, { fullPage: true });
      await page.context().close();
    });

    test(`in the vendor page's overlay the closed shop says ready and closes with its Close button (${size})`, async () => {
      const page = await newPage({ viewport, locale: 'en-US', isMobile: size === 'phone' });
      await page.goto(`${vendor.origin}/`);
      await page.click('#buy');
      const checkout = page.frameLocator('iframe[title="Checkout"]');
      await checkout.locator('#closed').waitFor();
      assert.equal(await checkout.locator('h1').textContent(), 'This shop is not taking payments yet');
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, `${ARTIFACTS}checkout-closed-overlay-${size}.png`);
      await checkout.locator('#close').click();
      await page.locator('iframe[title="Checkout"]').waitFor({ state: 'detached' });
      assert.deepEqual(await page.evaluate(() => (window as unknown as { heard: string[] }).heard), [
        'checkout.opened',
        'checkout.closed',
      ]);
      assert.equal(new URL(page.url()).origin, vendor.origin, 'not sent to the checkout as a full page');
      await page.context().close();
    });

    test(`a problem page framed for the vendor page has the Close button and tells it so (${size})`, async () => {
      const page = await newPage({ viewport, locale: 'en-US' });
      const src = `${t.url}/payment/product/TC-PR_00000000000000000000000000?embedded=1&origin=${encodeURIComponent(vendor.origin)}`;
      await page.goto(`${vendor.origin}/?frame=${encodeURIComponent(src)}`);
      await page.evaluate(() =>
        addEventListener('message', (e) => e.data && e.data.source === 'opentill' && console.log(e.data.type)),
      );
      const framed = page.frameLocator('iframe[title="Framed"]');
      assert.equal(await framed.locator('h1').textContent(), 'Product not found');
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, `${ARTIFACTS}checkout-problem-overlay-${size}.png`);
      // Listened for only now: the page's load, axe and the screenshot may take long on a busy machine.
      const received = page.waitForEvent('console', { predicate: (m) => m.text() === 'close', timeout: 10_000 });
      await framed.locator('#close').click();
      await received;
      await page.context().close();
    });
  }
});
