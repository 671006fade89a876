import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { businessPurchase, signedUpInBrowser } from '../helpers/panel-world.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/** Where the shots go: OPENTILL_SHOTS (a reviewer's folder), else the test artifacts. */
const SHOTS = process.env.OPENTILL_SHOTS ?? new URL('../../test-artifacts/', import.meta.url).pathname;

/**
 * The licence pages in a real Chromium at desktop and phone size, scanned with axe (docs/decisions.md
 * §40): the panel's transaction with the key's instances, revoke and reissue; the product form's
 * activation limit; the customer's management page, where an instance is freed with its button.
 */
describe('licence pages in Chromium', () => {
  let t: TestApp;
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}`, PANEL_SIGNUP: 'open' } });
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function fits(page: Page, name: string) {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `${name}: nothing wider than the screen (${overflow}px)`);
    assert.deepEqual(await seriousViolations(page), [], `${name}: no serious axe finding`);
  }

  const activate = (key: string, instanceName: string) =>
    fetch(`${t.url}/sandbox/v1/licences/${key}/activate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ instanceName }),
    });

  test('the panel and the management page show a key’s activations, and free one', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const scope = await signedUpInBrowser(page, t.url);
    const bought = await businessPurchase(t, scope);
    for (const name of ['ann-macbook-pro', 'build-server-with-a-rather-long-host-name-01']) {
      assert.equal((await activate(bought.licence, name)).status, 200);
    }

    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      await page.goto(`${t.url}/panel/transactions/${bought.id}?env=sandbox`);
      assert.equal(await page.locator('[data-testid="instance"]').count(), 2);
      await screenshot(page, `${SHOTS}licences-panel-${size}.png`, { fullPage: true });
      await fits(page, `transaction with a licence (${size})`);
      await page.goto(`${t.url}/panel/products?env=sandbox`);
      await page.locator('details:has([data-testid="activation-limit"]) > summary').first().click();
      await screenshot(page, `${SHOTS}licences-product-form-${size}.png`, { fullPage: true });
      await fits(page, `product form (${size})`);
    }

    const manage = t.services.hostedUrl('manage', scope, 'ann@example.com');
    const local = `${t.url}/sandbox${manage.slice(t.services.urls.base('sandbox').length)}`;
    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      await page.goto(local);
      assert.equal(await page.locator('[data-testid="instance"]').count(), 2);
      await screenshot(page, `${SHOTS}licences-manage-${size}.png`, { fullPage: true });
      await fits(page, `management page with activations (${size})`);
    }
    await page.locator('[data-testid="free-instance"]').first().click();
    await page.waitForURL(/done=instance-freed/);
    assert.equal(await page.locator('[data-testid="instance"]').count(), 1);
    assert.match((await page.locator('[role="status"]').textContent()) ?? '', /activation is removed/);
    await screenshot(page, `${SHOTS}licences-manage-freed-phone.png`, { fullPage: true });
    await fits(page, 'management page after freeing');

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${t.url}/panel/transactions/${bought.id}?env=sandbox`);
    await page.click('[data-testid="reissue-licence"]');
    await page.waitForURL(/done=licence-reissued/);
    assert.notEqual(await page.locator('[data-testid="licence"]').textContent(), bought.licence);
    await screenshot(page, `${SHOTS}licences-panel-reissued-desktop.png`, { fullPage: true });
    await fits(page, 'transaction after reissue');
    await context.close();
  });
});
