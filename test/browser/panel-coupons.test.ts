import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { signedUpInBrowser } from '../helpers/panel-world.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The panel's coupon form with the lasting terms (docs/decisions.md §38): a vendor makes a coupon for
 * 3 billing periods, capped, once per customer, on two products and monthly plans only, starting later;
 * the list says all of it. The page is axe-clean and shot at desktop and phone size.
 */
const SHOTS = process.env.OPENTILL_SHOTS_DIR;

describe('coupons in the vendor panel, in Chromium', () => {
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

  test('a lasting coupon is made with its terms and listed with them; the page is accessible at both sizes', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const scope = await signedUpInBrowser(page, t.url, 'coupons@acme.test');
    const monthly = { type: 'SUBSCRIPTION' as const, chargeFrequency: 'MONTHLY' as const };
    const cloud = await t.services.catalog.createProduct(scope, {
      name: 'Acme Cloud',
      ...monthly,
      prices: [{ currency: 'USD', value: 12 }],
    });
    const team = await t.services.catalog.createProduct(scope, {
      name: 'Acme Team',
      ...monthly,
      prices: [{ currency: 'USD', value: 30 }],
    });

    await page.goto(`${t.url}/panel/coupons?env=sandbox`);
    await page.click('summary:has-text("New coupon")');
    await page.selectOption('#coupon-product', cloud.id);
    await page.fill('#coupon-code', 'spring20');
    await page.fill('#coupon-off', '20%');
    await page.selectOption('#coupon-duration', 'repeating');
    await page.fill('#coupon-periods', '3');
    await page.fill('#coupon-starts', '2031-03-01');
    await page.fill('#coupon-max', '100');
    await page.fill('#coupon-per-customer', '1');
    await page.check('input[name="firstPurchaseOnly"]');
    await page.check(`input[name="also-${team.id}"]`);
    await page.check('input[name="frequency-MONTHLY"]');
    await page.click('button:has-text("Create the coupon")');
    assert.equal(
      (await page.locator('[data-testid="coupon-terms"]').textContent())!.replace(/\s+/g, ' '),
      'the first 3 billing periods · 0 of 100 used · 1 per customer · first purchase only · also Acme Team · monthly only · from 2031-03-01',
    );
    const [made] = await t.services.coupons.list(scope);
    assert.deepEqual(
      [made!.duration, made!.durationPeriods, made!.maxRedemptions, made!.otherProductIds, made!.frequencies],
      ['repeating', 3, 100, [team.id], ['MONTHLY']],
    );

    // A repeating coupon without its periods is refused with what to fix, and the form keeps what was typed.
    await page.click('summary:has-text("New coupon")');
    await page.fill('#coupon-code', 'broken');
    await page.fill('#coupon-off', '10%');
    await page.selectOption('#coupon-duration', 'repeating');
    await page.click('button:has-text("Create the coupon")');
    assert.match((await page.locator('[role="alert"]').textContent())!, /needs durationPeriods/);
    assert.equal(await page.inputValue('#coupon-code'), 'broken');

    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      await page.goto(`${t.url}/panel/coupons?env=sandbox`);
      await page.click('summary:has-text("New coupon")');
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `coupons (${size}): nothing wider than the screen (${overflow}px)`);
      if (SHOTS) await screenshot(page, `${SHOTS}/coupons-panel-${size}.png`, { fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], `coupons (${size}): no serious or critical violation`);
    }
  });
});
