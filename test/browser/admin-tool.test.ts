import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, freePort, screenshot } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The admin tool inside an iframe of the vendor's own site, in a real Chromium: it loads and works
 * inside a page of an origin the vendor allowed, and the browser refuses to show it inside a page of
 * any other origin. Screenshots go to test-artifacts/.
 */
/** A vendor site that frames whatever URL it is given in ?src=. */
async function vendorSite(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const src = new URL(req.url!, 'http://x').searchParams.get('src') ?? '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Vendor admin</title><h1>Our back office</h1><iframe id="admin" src="${src.replace(/"/g, '&quot;')}" style="width:100%;height:700px;border:1px solid #ccc"></iframe>`,
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

describe('admin tool in an iframe in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let allowed: { server: Server; origin: string };
  let foreign: { server: Server; origin: string };
  let paidId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    allowed = await vendorSite();
    foreign = await vendorSite();
    await t.services.catalog.updateVendorSettings(v.vendor.id, { adminFrameOrigins: [allowed.origin] });
    const product = await v.product({ type: 'ONETIME', name: 'Acme Pro', prices: [{ currency: 'USD', value: 30 }] });
    paidId = await v.buy(product.id, { email: 'hana@example.com' });
    await v.buy(product.id, { email: 'ivan@example.com' });
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    allowed?.server.close();
    foreign?.server.close();
    await t?.close();
  });

  const adminLink = async () => (await v.api('/v1/generate-url-to-admin')).json.url as string;

  test('inside a page of an allowed origin it loads, searches and refunds', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
    await page.goto(`${allowed.origin}/?src=${encodeURIComponent(await adminLink())}`);
    const admin = page.frameLocator('#admin');
    assert.equal(await admin.locator('h1').textContent(), 'Transactions');
    assert.equal(await admin.locator('[data-testid="row"]').count(), 2);
    await screenshot(page, `${ARTIFACTS}admin-in-iframe.png`);
    const field = (await admin.locator('#q').boundingBox())!;
    const button = (await admin.locator('button[type="submit"]').first().boundingBox())!;
    assert.deepEqual(
      [button.y, button.height],
      [field.y, field.height],
      'the Search button is as tall as the search field, level with it',
    );

    await admin.locator('#q').fill('hana@example.com');
    await admin.locator('button[type="submit"]').first().click();
    await admin.locator(`[data-id="${paidId}"] a`).click();
    assert.match((await admin.locator('[data-testid="status"]').textContent())!, /Paid/);
    await admin.locator('[data-testid="refund"]').click();
    await admin.locator('[role="status"]').waitFor();
    assert.equal(await admin.locator('[data-testid="status"]').textContent(), 'Refunded');
    await screenshot(page, `${ARTIFACTS}admin-refunded.png`);
    assert.equal((await t.services.store.transactions.find(v.scope(), paidId))?.status, 'TRANSACTION_STATUS_REFUNDED');
    await page.close();
  });

  test('inside a page of any other origin the browser refuses to show it', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
    // Chromium reports the refusal on the console of the framing page.
    const refused = page.waitForEvent('console', {
      predicate: (message) => /frame-ancestors/.test(message.text()),
      timeout: 15_000,
    });
    await page.goto(`${foreign.origin}/?src=${encodeURIComponent(await adminLink())}`);
    assert.match(
      (await refused).text(),
      /violates the following Content Security Policy directive: "frame-ancestors http:\/\/localhost:\d+". The request has been blocked/,
    );
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    const text = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
    assert.doesNotMatch(text, /Transactions|hana@example\.com/);
    await screenshot(page, `${ARTIFACTS}admin-refused-in-foreign-iframe.png`);
    await page.close();
  });
});
