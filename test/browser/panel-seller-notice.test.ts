import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * What keeps a vendor's checkout closed, in Chromium (issue 34, docs/decisions.md §24): on production's
 * pages the panel lists the parts of the seller identity missing, with a link to Settings, until they
 * are saved; a suspension is said on both sides; the checkout's page tells a buyer before any form.
 * Axe-clean, shot at desktop and phone size (test-artifacts/panel-seller-notice-*.png, checkout-seller-closed-*.png).
 */
describe('the panel: the notices that say why the checkout is closed, in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let productId: string;
  const password = 'a long enough passphrase';

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    productId = (await v.product({ type: 'ONETIME', name: 'Acme Pro' }, 'production')).id;
    const { token } = await t.services.panelInvites.issue(v.vendor.id);
    await t.services.panelInvites.accept(token, password);
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`production lists what is missing and links to Settings, where saving it lifts the notice; a suspension shows on both sides (${size})`, async () => {
      await t.services.catalog.updateVendorSettings(v.vendor.id, { address: '', taxId: '' });
      await t.services.catalog.suspendVendor(v.vendor.id, { stopRenewals: true, reason: 'card testing seen' });
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await page.goto(`${t.url}/panel/signin`);
        await page.fill('#email', v.vendor.email);
        await page.fill('#password', password);
        await page.click('button[type="submit"]');
        await page.goto(`${t.url}/panel?env=production`);
        const missing = page.locator('[data-testid="identity-missing"]');
        assert.match((await missing.textContent())!, /production checkout is closed[^]*Missing: address, tax ID\./);
        assert.match(
          (await page.locator('[data-testid="suspended"]').textContent())!,
          /suspended[^]*card testing seen[^]*Renewals of your subscriptions are paused/,
        );
        assert.deepEqual(await seriousViolations(page), [], `overview (${size})`);
        await screenshot(page, `${ARTIFACTS}panel-seller-notice-${size}.png`, { fullPage: true });

        await page.goto(`${t.url}/panel?env=sandbox`);
        assert.equal(
          await page.locator('[data-testid="identity-missing"]').count(),
          0,
          'the sandbox needs no identity',
        );
        assert.equal(await page.locator('[data-testid="suspended"]').count(), 1);

        const closed = await context.newPage();
        const res = await closed.goto(`${t.url}/payment/product/${productId}`);
        assert.equal(res?.status(), 403);
        assert.equal(await closed.locator('h1').textContent(), 'This seller is not taking purchases');
        assert.deepEqual(await seriousViolations(closed), [], `checkout (${size})`);
        await screenshot(closed, `${ARTIFACTS}checkout-seller-closed-${size}.png`, { fullPage: true });

        await t.services.catalog.resumeVendor(v.vendor.id);
        await closed.goto(`${t.url}/payment/product/${productId}`);
        assert.equal(await closed.locator('h1').textContent(), 'This seller cannot take payments yet');
        await page.goto(`${t.url}/panel?env=production`);
        await missing.locator('a').click();
        assert.equal(await page.locator('h1').textContent(), 'Settings');
        await page.fill('#address', 'Hauptstraße 5\n10115 Berlin');
        await page.fill('#taxId', 'DE123456789');
        await page.click('form.narrow button[type="submit"]');
        assert.match((await page.locator('.alert.ok').textContent())!, /The settings are saved/);
        assert.equal(await missing.count(), 0, 'complete: no notice');
        assert.equal((await closed.goto(`${t.url}/payment/product/${productId}`))?.status(), 200);
      } finally {
        await context.close();
      }
    });
  }
});
