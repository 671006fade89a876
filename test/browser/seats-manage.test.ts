import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fixedClock } from '../../src/domain/clock.ts';
import { freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The customer's seats control on the management page in a real Chromium (docs/decisions.md §39):
 * offered, changed, then waiting for the next charge; axe-clean, nothing wider than a desktop or a phone,
 * in English and Arabic (right to left). Screenshots go to scratch/shots/ (SEATS2_SHOTS) to look at.
 */
const SHOTS = process.env.SEATS2_SHOTS;

describe('seats on the management page in Chromium', () => {
  const clock = fixedClock(new Date('2031-05-01T00:00:00.000Z'));
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, clock, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Seats Co');
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function looked(page: Page, name: string) {
    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `${name} (${size}): nothing wider than the screen (${overflow}px)`);
      if (size === 'desktop') assert.deepEqual(await seriousViolations(page), [], `${name}: no serious axe finding`);
      if (SHOTS) await screenshot(page, `${SHOTS}/seats2-${name}-${size}.png`, { fullPage: true });
    }
  }

  test('the customer raises 5 seats to 8, then sees when they may change again, in English and Arabic', async () => {
    const product = await v.product({
      name: 'Team Plan',
      type: 'SUBSCRIPTION',
      chargeFrequency: 'MONTHLY',
      prices: [{ currency: 'USD', value: 10 }],
      seats: { minQuantity: 2, maxQuantity: 50 },
    });
    await v.buy(product.id, { email: 'team@example.com', quantity: 5 });
    await t.services.portal.setCustomerSeats(v.vendor.id, true);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const url = t.services.hostedUrl('manage', v.scope(), 'team@example.com');
    await page.goto(`${url}?locale=ar`);
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    await looked(page, 'offer-ar');
    await page.goto(url);
    await looked(page, 'offer');
    await page.fill('input[name="quantity"]', '8');
    await page.click('[data-testid="change-seats"]');
    await page.waitForURL(/done=seats/);
    assert.match((await page.locator('[data-testid="seats-wait"]').textContent())!, /Number of seats: 8/);
    await looked(page, 'changed');
    await context.close();
  });
});
