import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { stripeGateway } from '../../src/gateways/stripe-gateway.ts';
import { ARTIFACTS, freePort, screenshot } from '../../support/chromium.ts';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * Production, Stripe's Payment Element (the stand-in's Stripe.js and API on loopback) inside the
 * overlay of a vendor's page (docs/decisions.md §29): a card the element declines is `checkout.failed`
 * on the vendor's page, which stays; the next card pays, and the page hears `checkout.paid` and lands
 * on its success URL with the transaction's id.
 */
describe("the vendor page hears the production checkout with Stripe's Payment Element, in Chromium", () => {
  let s: StripeStandIn;
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let vendor: { server: Server; origin: string };
  let productId: string;

  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual' });
    const port = await freePort();
    const keys = { secretKey: s.secretKey, publishableKey: s.publishableKey, webhookSecret: undefined };
    t = await startTestApp('sqlite', {
      port,
      env: { BASE_URL: `http://127.0.0.1:${port}` },
      gateways: { production: stripeGateway({ keys, apiUrl: s.url, jsUrl: s.jsUrl, timeoutMs: 10_000 }) },
    });
    v = await t.newVendor('Acme Software');
    productId = (
      await v.product({ type: 'ONETIME', name: 'Acme Pro', prices: [{ currency: 'USD', value: 49 }] }, 'production')
    ).id;
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        new URL(req.url!, 'http://localhost').pathname === '/thanks'
          ? '<!doctype html><title>Thanks</title><h1>Thank you</h1>'
          : `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title>
      <script>function record(e){var l=JSON.parse(sessionStorage.getItem('heard')||'[]');l.push([e.name,e.transactionId,e.status]);sessionStorage.setItem('heard',JSON.stringify(l))}</script>
      <script src="${t.url}/latest/widget.min.js"></script>
      <script>['checkout.opened','checkout.paid','checkout.failed'].forEach(function(n){tc.on(n,record)});</script></head>
      <body><h1>Acme Pro</h1><button id="buy" data-ts-button data-ts-product="${productId}" data-ts-email="element@example.com" data-ts-success-url="/thanks?from=element">Buy</button></body></html>`,
      );
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    vendor = { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    vendor?.server.close();
    await t?.close();
    await s?.close();
  });

  test('a card the element declines is checkout.failed and the page stays; the next card pays and lands on the success URL', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const heard = () => page.evaluate(() => JSON.parse(sessionStorage.getItem('heard') || '[]') as unknown[]);
    await page.goto(`${vendor.origin}/`);
    await page.click('#buy');
    const checkout = page.frameLocator('iframe[title="Checkout"]');
    const element = checkout.frameLocator('iframe[title="Secure payment input frame"]');
    const typeCard = async (card: string) => {
      await element.getByLabel('Card number').fill(card);
      await element.getByLabel('Expiration date').fill('12 / 34');
      await element.getByLabel('Security code').fill('123');
    };
    await element.getByLabel('Card number').waitFor();
    await typeCard('4000 0000 0000 0002');
    await checkout.locator('#pay').click();
    await checkout.locator('#card-error').waitFor({ state: 'visible' });
    await page.waitForFunction(() => (sessionStorage.getItem('heard') || '').includes('checkout.failed'));
    assert.deepEqual(await heard(), [
      ['checkout.opened', null, null],
      ['checkout.failed', null, 'DECLINED'],
    ]);
    assert.equal(new URL(page.url()).pathname, '/', 'a declined card is not followed to the success URL');
    await screenshot(page, `${ARTIFACTS}checkout-events-element-declined-desktop.png`);

    await element.getByLabel('Card number').fill('4242 4242 4242 4242');
    await checkout.locator('#pay').click();
    await page.waitForURL((url) => url.pathname === '/thanks', { timeout: 20_000 });
    const [paid] = (await v.api('/v1/transactions/element%40example.com', { environment: 'production' })).json;
    const landed = new URL(page.url());
    assert.deepEqual(
      [...landed.searchParams],
      [
        ['from', 'element'],
        ['transaction_id', paid.id],
      ],
    );
    assert.deepEqual((await heard()).slice(2), [['checkout.paid', paid.id, 'ONE_TIME_PAYMENT_STATUS_PAID']]);
    await page.close();
  });
});
