import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Frame, Page } from 'playwright-core';
import { ARTIFACTS, freePort, screenshot } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The checkout in the overlay of a vendor's page, in a real Chromium, with three other origins
 * about (docs/decisions.md §14): the vendor's page (it opens the checkout with the client script and
 * is told of the payment), a third party's frame inside that page, and a foreign site that frames
 * the checkout URL announced for the vendor. Only the vendor's page hears from the checkout; the
 * browser refuses to show the checkout inside the foreign site. Screenshots go to test-artifacts/.
 */

/** Every page here records the opentill messages its window receives, with their origin. */
const RECORDER = `<script>window.received=[];addEventListener('message',function(e){if(e.data&&e.data.source==='opentill')window.received.push({origin:e.origin,data:e.data})})</script>`;

interface Site {
  server: Server;
  origin: string;
}

/** A site on its own origin (localhost and a port of its own) serving `page(url)` as HTML. */
async function site(page: (url: URL) => string): Promise<Site> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(new URL(req.url!, 'http://localhost')));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

describe('the embedded checkout in Chromium, among other origins', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let vendor: Site;
  let thirdParty: Site;
  let foreign: Site;
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    productId = (
      await v.product({
        type: 'ONETIME',
        name: 'Acme Pro',
        description: 'The whole toolbox, for one developer.',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      })
    ).id;
    thirdParty = await site(() => `<!doctype html><title>Chat</title>${RECORDER}<p>Chat with us</p>`);
    vendor = await site(
      () => `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme</title>${RECORDER}
      <script src="${t.url}/latest/widget.sandbox.min.js"></script></head><body style="font-family:sans-serif;margin:2rem">
      <h1>Acme Pro</h1><p>Everything a developer needs. <span data-ts-price data-ts-product="${productId}" data-ts-country="DE">…</span></p>
      <button id="buy" data-ts-button data-ts-product="${productId}" data-ts-country="DE" data-ts-email="embedded@example.com">Buy now</button>
      <iframe id="chat" src="${thirdParty.origin}/" style="width:300px;height:120px;border:1px solid #ccc"></iframe></body></html>`,
    );
    foreign = await site(
      (url) =>
        `<!doctype html><title>Not the vendor</title>${RECORDER}<h1>Somebody else's site</h1><iframe id="checkout" src="${(url.searchParams.get('src') ?? '').replace(/"/g, '&quot;')}" style="width:100%;height:600px"></iframe>`,
    );
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    for (const s of [vendor, thirdParty, foreign]) s?.server.close();
    await t?.close();
  });

  const receivedIn = (frame: Page | Frame) =>
    frame.evaluate(
      () => (window as unknown as { received: { origin: string; data: Record<string, unknown> }[] }).received,
    );
  const frameAt = (page: Page, origin: string) => page.frames().find((f) => f.url().startsWith(origin))!;

  /** Opens the vendor's page at this size, presses Buy and waits for the checkout form in the overlay. */
  async function openCheckout(viewport: { width: number; height: number }, mobile = false) {
    const page = await browser.newPage({ viewport, isMobile: mobile, hasTouch: mobile, locale: 'en-US' });
    await page.goto(`${vendor.origin}/`);
    await page.click('#buy');
    const checkout = page.frameLocator('iframe[title="Checkout"]');
    await checkout.locator('#cardNumber').waitFor();
    await page.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0);
    return { page, checkout };
  }

  test("the vendor's page opens the checkout, announcing its origin, and alone hears 'ready' and then 'paid' with the transaction id", async () => {
    const { page, checkout } = await openCheckout({ width: 1280, height: 800 });
    const src = new URL((await page.getAttribute('iframe[title="Checkout"]', 'src'))!);
    assert.equal(src.origin, t.url);
    assert.deepEqual([src.searchParams.get('embedded'), src.searchParams.get('origin')], ['1', vendor.origin]);
    assert.equal(await checkout.locator('[data-testid="total"]').textContent(), '€22.02');
    // The script listens to the checkout's frame and origin only: a 'close' from the third-party frame does nothing.
    await frameAt(page, thirdParty.origin).evaluate(() =>
      parent.postMessage({ source: 'opentill', type: 'close' }, '*'),
    );
    await page.waitForTimeout(300);
    assert.equal(await page.locator('iframe[title="Checkout"]').count(), 1, 'the overlay is still open');
    await checkout.locator('#cardNumber').fill('4242 4242 4242 4242');
    await checkout.locator('#cardExpiry').fill('12/34');
    await checkout.locator('#cardCvc').fill('123');
    await screenshot(page, `${ARTIFACTS}checkout-embedded-desktop.png`);
    await checkout.locator('#pay').click();
    await checkout.locator('#receipt').waitFor();
    await page.waitForFunction(() =>
      (window as unknown as { received: { data: { type: string } }[] }).received.some((m) => m.data.type === 'paid'),
    );

    const [paid] = (await v.api('/v1/transactions/embedded%40example.com')).json;
    const received = (await receivedIn(page)).filter((m) => m.origin !== thirdParty.origin); // less the forged 'close' above
    assert.deepEqual(
      received.map((m) => [m.origin, m.data.type, m.data.transactionId]),
      [
        [t.url, 'ready', undefined],
        [t.url, 'ready', undefined],
        [t.url, 'paid', paid.id],
      ],
      'ready from the form, ready and paid from the receipt, all from the checkout origin',
    );
    assert.deepEqual(
      await receivedIn(frameAt(page, thirdParty.origin)),
      [],
      'the third-party frame in the same page hears nothing',
    );

    await checkout.locator('#close').click();
    await page.locator('iframe[title="Checkout"]').waitFor({ state: 'detached' });
    await page.close();
  });

  test('on a phone the embedded checkout fills the screen without sideways scrolling', async () => {
    const { page, checkout } = await openCheckout({ width: 375, height: 740 }, true);
    const overflow = await checkout
      .locator('body')
      .evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0);
    const box = (await page.locator('iframe[title="Checkout"]').boundingBox())!;
    assert.deepEqual([box.width, box.height], [375, 740]);
    await screenshot(page, `${ARTIFACTS}checkout-embedded-phone.png`);
    await page.close();
  });

  test('a foreign site that frames the checkout URL announced for the vendor is refused by the browser and hears nothing', async () => {
    const announced = `${t.url}/sandbox/payment/product/${productId}?country=DE&embedded=1&origin=${encodeURIComponent(vendor.origin)}`;
    const page = await browser.newPage({ viewport: { width: 900, height: 800 } });
    // Chromium reports the refusal on the console of the framing page.
    const refused = page.waitForEvent('console', {
      predicate: (message) => /frame-ancestors/.test(message.text()),
      timeout: 15_000,
    });
    await page.goto(`${foreign.origin}/?src=${encodeURIComponent(announced)}`);
    assert.match(
      (await refused).text(),
      new RegExp(
        `violates the following Content Security Policy directive: "frame-ancestors ${vendor.origin}". The request has been blocked`,
      ),
    );
    await page.waitForTimeout(1500);
    assert.deepEqual(await receivedIn(page), [], 'no ready, no paid: nothing reaches a third frame');
    const framed = page.frames().find((f) => f !== page.mainFrame())!;
    assert.doesNotMatch(
      await framed.evaluate(() => document.body?.innerText ?? '').catch(() => ''),
      /Acme Pro|Card number/,
    );
    await screenshot(page, `${ARTIFACTS}checkout-refused-in-foreign-frame.png`);
    await page.close();
  });

  test('a plain payment link may not be framed at all', async () => {
    const page = await browser.newPage();
    const refused = page.waitForEvent('console', {
      predicate: (message) => /frame-ancestors/.test(message.text()),
      timeout: 15_000,
    });
    await page.goto(`${foreign.origin}/?src=${encodeURIComponent(`${t.url}/sandbox/payment/product/${productId}`)}`);
    assert.match((await refused).text(), /"frame-ancestors 'none'"/);
    await page.close();
  });
});
