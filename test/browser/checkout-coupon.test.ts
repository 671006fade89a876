import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixedClock } from '../../src/domain/clock.ts';
import { freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * A lasting coupon at the checkout, in Chromium (docs/decisions.md §38): its words under the price, in
 * English and in Arabic (right to left), axe-clean and within the screen at desktop and phone size. A
 * coupon typed into the form brings its words with the new price. Shots go to OPENTILL_SHOTS_DIR if set.
 */
const SHOTS = process.env.OPENTILL_SHOTS_DIR;
const clock = fixedClock(new Date('2030-09-01T09:00:00.000Z'));

describe('a lasting coupon at the checkout, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let productId: string;
  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, clock, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    const v = await t.newVendor('Lasting Software');
    productId = (
      await v.product({
        type: 'SUBSCRIPTION',
        name: 'Atlas Cloud',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 9 }],
      } as never)
    ).id;
    await t.services.coupons.create(v.scope(), {
      productId,
      code: 'THREE20',
      percentOff: 20,
      duration: 'repeating',
      durationPeriods: 3,
    });
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the words of a 3-month coupon, typed in or in the link, in English and Arabic at both sizes', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US&zipCode=10001`);
    await page.fill('#coupon', 'three20');
    await page.locator('#coupon').blur();
    await page.waitForSelector('[data-testid="coupon-terms"]');
    assert.match(
      (await page.locator('[data-testid="coupon-terms"]').textContent())!,
      /^20% off for 3 months, then \$9\.\d\d every month\.$/,
    );
    for (const locale of ['en', 'ar']) {
      for (const [size, viewport] of SCREEN_SIZES) {
        await page.setViewportSize(viewport);
        await page.goto(
          `${t.url}/sandbox/payment/product/${productId}?country=US&zipCode=10001&coupon=THREE20&locale=${locale}`,
        );
        assert.ok(
          await page.locator('[data-testid="coupon-terms"]').isVisible(),
          `${locale} ${size}: the words are shown`,
        );
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.ok(overflow <= 0, `${locale} ${size}: nothing wider than the screen (${overflow}px)`);
        if (SHOTS) await screenshot(page, `${SHOTS}/coupons-checkout-${locale}-${size}.png`, { fullPage: true });
        assert.deepEqual(await seriousViolations(page), [], `${locale} ${size}: no serious or critical violation`);
      }
    }
  });
});
