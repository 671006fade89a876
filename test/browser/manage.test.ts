import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { pdfText } from '../helpers/pdf-text.ts';
import { ARTIFACTS, freePort, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The customer's management page in a real Chromium: the customer opens the link from the vendor,
 * sees the purchases, cancels a subscription and downloads an invoice. Screenshots go to test-artifacts/.
 */
describe('customer management page in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let subscriptionId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    const app = await v.product({
      type: 'ONETIME',
      name: 'Acme Desktop',
      issuesLicences: true,
      prices: [
        { currency: 'USD', value: 49 },
        { currency: 'EUR', value: 45 },
      ],
    } as any);
    const plan = await v.product({
      type: 'SUBSCRIPTION',
      chargeFrequency: 'MONTHLY',
      name: 'Acme Cloud',
      prices: [
        { currency: 'USD', value: 8 },
        { currency: 'EUR', value: 7.5 },
      ],
    } as any);
    await v.buy(app.id, { email: 'greta@example.com', firstName: 'Greta', lastName: 'Berg', country: 'DE' });
    subscriptionId = await v.buy(plan.id, { email: 'greta@example.com', country: 'DE' });
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the customer opens the link, cancels the subscription and downloads an invoice', async () => {
    const url = (await v.api('/v1/generate-url-to-manage-transactions/greta%40example.com')).json.url as string;
    const page = await browser.newPage({
      locale: 'en-US',
      viewport: { width: 390, height: 844 },
      acceptDownloads: true,
    });
    await page.goto(url);
    assert.equal(await page.locator('h1').textContent(), 'Your purchases');
    assert.equal(await page.locator('[data-testid="purchase"]').count(), 2);
    assert.match((await page.locator('[data-testid="licence"]').textContent())!, /^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
    await screenshot(page, `${ARTIFACTS}manage-page.png`, { fullPage: true });

    const plan = page.locator(`[data-id="${subscriptionId}"]`);
    await plan.locator('[data-testid="cancel"]').click();
    await page.waitForURL(/page=cancel/);
    assert.equal(await page.locator('h1').textContent(), 'Cancel Acme Cloud?');
    await page.locator('#reason').fill('Switching to the desktop app');
    await page.locator('[data-testid="confirm-cancel"]').click();
    await page.waitForURL(/done=cancelled/);
    assert.match((await page.locator('[role="status"]').textContent())!, /Cancelled/);
    assert.match(
      (await plan.locator('[data-testid="status"]').textContent())!,
      /^Cancelled, active until \w+ \d{1,2}, \d{4}$/,
    );
    assert.equal(await plan.locator('[data-testid="cancel"]').count(), 0);
    await screenshot(page, `${ARTIFACTS}manage-cancelled.png`, { fullPage: true });
    const tx = await t.services.store.transactions.find(v.scope(), subscriptionId);
    assert.deepEqual(
      [tx?.status, tx?.whoCanceled, tx?.cancelReason],
      ['SUBSCRIPTION_STATUS_CANCELLED_PENDING', 'CUSTOMER', 'Switching to the desktop app'],
    );

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      plan.locator('[data-testid="invoice"]').first().click(),
    ]);
    assert.match(download.suggestedFilename(), /^invoice-TEST-\d{6}\.pdf$/);
    const text = await pdfText(readFileSync((await download.path())!));
    assert.match(text, /Acme Cloud/);
    assert.match(text, /VAT 19%\s*1,43\s€ Total paid\s*8,93\s€/);
    await page.close();
  });

  test('in Arabic the portal reads right to left, its forms mirrored, and is axe-clean on a phone', async () => {
    const url = (await v.api('/v1/generate-url-to-manage-transactions/greta%40example.com')).json.url as string;
    const context = await browser.newContext({ locale: 'ar', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      for (const path of [
        url,
        `${url}?page=billing&id=${subscriptionId}`,
        `${t.url}/sandbox/manage/sign-in/${v.vendor.id}`,
      ]) {
        await page.goto(path);
        assert.equal(await page.locator('html').getAttribute('dir'), 'rtl', path);
        assert.equal(await page.locator('html').getAttribute('lang'), 'ar');
        // The heading's text sits at the right: its words end where the content does, not at the left.
        const text = await page.evaluate(() => {
          const range = document.createRange();
          range.selectNodeContents(document.querySelector('h1')!);
          const box = range.getBoundingClientRect();
          return { left: box.left, right: box.right, width: document.documentElement.clientWidth };
        });
        assert.ok(
          text.right > text.width - 40 && text.left > 40,
          `${path}: heading text at the right ${JSON.stringify(text)}`,
        );
        assert.deepEqual(await seriousViolations(page), [], path);
      }
      await screenshot(page, `${ARTIFACTS}manage-sign-in-ar.png`, { fullPage: true });
    } finally {
      await context.close();
    }
  });

  test('an expired or forged link shows a clear page', async () => {
    const page = await browser.newPage();
    const url = (await v.api('/v1/generate-url-to-manage-transactions/greta%40example.com')).json.url as string;
    const forged = await page.goto(url.slice(0, -3) + 'abc');
    assert.equal(forged?.status(), 404);
    assert.equal(await page.locator('h1').textContent(), 'This link is not valid');
    await screenshot(page, `${ARTIFACTS}manage-forged.png`);
    await page.close();
  });
});
