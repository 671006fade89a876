import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { signedUpInBrowser } from '../helpers/panel-world.ts';
import { startTestApp, TEST_CARD, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The product form's Seats fieldset in Chromium (docs/decisions.md §39): a vendor makes a per-seat product
 * with a tier by typing, and the page is axe-clean at desktop and phone size; screenshots go to
 * scratch/shots/seats-panel-*.png.
 */
const SHOTS = new URL('../../scratch/shots/', import.meta.url).pathname;

describe('the panel product form sells per seat, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    t = await startTestApp('sqlite', { env: { PANEL_SIGNUP: 'open' } });
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('typed into the form, a per-seat product with a tier is made; the page is axe-clean at both sizes', async () => {
    const context = await browser.newContext({ viewport: SCREEN_SIZES[0][1] });
    const page = await context.newPage();
    const scope = await signedUpInBrowser(page, t.url, 'seats@panel.test');
    await page.goto(`${t.url}/panel/products?env=sandbox`);
    await page.fill('#name', 'Team plan');
    await page.selectOption('#type', 'SUBSCRIPTION');
    await page.fill('#prices', 'USD 10.00');
    await page.check('input[name="perSeat"]');
    await page.fill('#seatMin', '1');
    await page.fill('#seatMax', '50');
    await page.fill('#seatTiers', '10: USD 8.00');
    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      assert.deepEqual(await seriousViolations(page), [], size);
      await screenshot(page.locator('[data-testid="seats"]').first(), `${SHOTS}seats-panel-${size}.png`);
    }
    await page.click('text=Create the product');
    await page.locator('text=The product is created.').waitFor();
    const [product] = await t.services.catalog.listProducts(scope);
    assert.deepEqual(product!.seats, {
      minQuantity: 1,
      maxQuantity: 50,
      tiers: [{ fromQuantity: 10, prices: { USD: 800 } }],
    });
    // The subscription's page: its seats and the form to change them, axe-clean at both sizes.
    const bought = await t.services.purchases.purchase(scope, {
      productId: product!.id,
      email: 'team@example.com',
      country: 'US',
      quantity: 3,
      card: TEST_CARD,
    });
    assert.equal(bought.status, 'PAID');
    await page.goto(`${t.url}/panel/transactions/${bought.status === 'PAID' ? bought.transaction.id : ''}?env=sandbox`);
    await page.locator('[data-testid="change-seats"]').waitFor();
    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      assert.deepEqual(await seriousViolations(page), [], size);
      await screenshot(page, `${SHOTS}seats-panel-subscription-${size}.png`, { fullPage: true });
    }
    await context.close();
  });
});
