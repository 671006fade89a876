import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, screenshot } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The client script in a real Chromium: a vendor's page on its own origin includes the sandbox
 * script, shows localized prices, opens checkout in the overlay and pays. Screenshots go to
 * test-artifacts/.
 */
describe('client script and checkout in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let vendorSite: Server;
  let siteUrl: string;
  let browser: Browser;
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    productId = (
      await v.product({
        type: 'ONETIME',
        name: 'Acme Pro',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      })
    ).id;
    // The vendor's own site, on another origin than opentill.
    const page = `<!doctype html><html><head><meta charset="utf-8"><title>Acme</title>
      <script src="${t.url}/latest/widget.sandbox.min.js"></script></head><body>
      <p>Germany: <span id="de" data-ts-price data-ts-product="${productId}" data-ts-country="DE">…</span></p>
      <p>California: <span id="us" data-ts-price data-ts-product="${productId}" data-ts-country="US" data-ts-zip-code="94103">…</span></p>
      <p>Hong Kong: <span id="hk" data-ts-price data-ts-product="${productId}" data-ts-country="HK">…</span></p>
      <button id="buy" data-ts-button data-ts-product="${productId}" data-ts-country="DE" data-ts-email="browser@example.com">Buy</button>
      </body></html>`;
    vendorSite = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page),
    );
    await new Promise<void>((done) => vendorSite.listen(0, '127.0.0.1', done));
    siteUrl = `http://localhost:${(vendorSite.address() as AddressInfo).port}/`;
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    vendorSite?.close();
    await t?.close();
  });

  const openSite = async (): Promise<Page> => {
    const page = await browser.newPage({ locale: 'en-US' });
    await page.goto(siteUrl);
    return page;
  };

  test('prices appear localized: VAT in Germany, ZIP sales tax in California, no tax in Hong Kong', async () => {
    const page = await openSite();
    await page.waitForFunction(() =>
      ['de', 'us', 'hk'].every((id) => document.getElementById(id)!.dataset.tsTaxRate !== undefined),
    );
    assert.equal(await page.textContent('#de'), '€22.02');
    assert.equal(await page.getAttribute('#de', 'data-ts-tax-name'), 'VAT');
    assert.equal(await page.textContent('#us'), '$21.65');
    assert.equal(await page.getAttribute('#us', 'data-ts-tax-rate'), '0.0825');
    assert.match((await page.textContent('#hk'))!, /^HK\$\d/);
    assert.equal(await page.getAttribute('#hk', 'data-ts-tax-rate'), '0');
    const price = await page.evaluate((id) => (window as any).tc.getPrice(id), productId);
    assert.deepEqual(Object.keys(price).sort(), ['currency', 'price', 'priceNet', 'tax', 'taxName', 'taxRate']);
    const rejected = await page.evaluate(() =>
      (window as any).tc.buy('TC-PR_00000000000000000000000000').then(
        () => 'resolved',
        (e: unknown) => (e instanceof Error ? e.message : 'not an Error'),
      ),
    );
    assert.match(rejected, /not found/);
    await page.close();
  });

  test('the button opens checkout in an overlay; the success card pays at the price shown', async () => {
    const page = await openSite();
    await page.click('#buy');
    const frame = page.frameLocator('iframe');
    await frame.locator('#cardNumber').waitFor();
    assert.equal(await frame.locator('[data-testid="total"]').textContent(), '€22.02');
    assert.equal(await frame.locator('#email').inputValue(), 'browser@example.com');
    await frame.locator('#cardNumber').fill('4242 4242 4242 4242');
    await frame.locator('#cardExpiry').fill('12/34');
    await frame.locator('#cardCvc').fill('123');
    await screenshot(page, `${ARTIFACTS}checkout-overlay.png`, { fullPage: true });
    await frame.locator('#pay').click();
    await frame.locator('#receipt').waitFor();
    assert.match((await frame.locator('#receipt').textContent())!, /€22\.02/);
    await screenshot(page, `${ARTIFACTS}checkout-receipt.png`, { fullPage: true });

    const listed = await v.api('/v1/transactions/browser%40example.com');
    assert.equal(listed.json.length, 1);
    assert.deepEqual(
      [listed.json[0].currency, listed.json[0].netPrice, listed.json[0].tax, listed.json[0].country],
      ['EUR', 18.5, 3.52, 'DE'],
    );
    await page.close();
  });

  test('elements added after load get their price; buy with redirect opens checkout as a full page', async () => {
    const page = await openSite();
    await page.evaluate((id) => {
      const late = document.createElement('span');
      late.id = 'late';
      late.dataset.tsPrice = '';
      late.dataset.tsProduct = id;
      late.dataset.tsCountry = 'DE';
      document.body.append(late);
    }, productId);
    await page.waitForFunction(() => document.getElementById('late')!.dataset.tsTaxRate !== undefined);
    assert.equal(await page.textContent('#late'), '€22.02');

    await Promise.all([
      page.waitForURL(/\/sandbox\/payment\/product\//),
      page.evaluate((id) => (window as any).tc.buy(id, { email: 'redirect@example.com', redirect: true }), productId),
    ]);
    assert.equal(await page.inputValue('#email'), 'redirect@example.com');
    await page.close();
  });

  test('the checkout page fits a phone screen', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=DE`);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, 'no horizontal scrolling');
    for (const field of ['#email', '#cardNumber', '#cardExpiry', '#cardCvc']) {
      const box = (await page.locator(field).boundingBox())!;
      assert.ok(box.height >= 40, `${field} is tall enough to tap (${box.height}px)`);
      assert.ok(box.x >= 0 && box.x + box.width <= 375, `${field} fits the screen`);
    }
    // Every input has a label.
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input:not([type=hidden]), select')]
        .filter((el) => !document.querySelector(`label[for="${el.id}"]`))
        .map((el) => el.id),
    );
    assert.deepEqual(unlabelled, []);
    await screenshot(page, `${ARTIFACTS}checkout-phone.png`, { fullPage: true });
    await page.close();
  });

  test('the decline card shows a clear message and creates no paid transaction', async () => {
    const page = await openSite();
    await page.evaluate(
      (id) => (window as any).tc.buy(id, { email: 'declined-browser@example.com', country: 'DE' }),
      productId,
    );
    const frame = page.frameLocator('iframe');
    await frame.locator('#cardNumber').fill('4000000000000002');
    await frame.locator('#cardExpiry').fill('12/34');
    await frame.locator('#cardCvc').fill('123');
    await frame.locator('#pay').click();
    await frame.locator('#error').waitFor();
    assert.match((await frame.locator('#error').textContent())!, /declined/i);
    await screenshot(page, `${ARTIFACTS}checkout-declined.png`, { fullPage: true });
    assert.deepEqual((await v.api('/v1/transactions/declined-browser%40example.com')).json, []);
    await page.close();
  });
});
