import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fixedClock } from '../../src/domain/clock.ts';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { monthlyTrial } from '../helpers/trial-product.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The checkout and its receipt in the buyer's language, in Chromium (docs/decisions.md §33): German,
 * Arabic (right to left, mirrored) and Japanese, axe-clean; and the pseudo-locale (accented, 40% longer)
 * at phone and desktop width, where no element may overflow its box or leave the viewport. Screenshots go
 * to test-artifacts/checkout-lang-*.png.
 */

const clock = fixedClock(new Date('2026-11-19T10:00:00.000Z'));

/** Every element of the page's main that is wider than its box or reaches outside the viewport, as `tag#id.class: why`. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width)
      found.push(`page: ${document.documentElement.scrollWidth} > ${width}`);
    for (const el of document.querySelectorAll<HTMLElement>('main *')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${el.className}` : ''}`;
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
        found.push(`${name}: ${el.scrollWidth} > ${el.clientWidth}`);
      if (box.left < -1 || box.right > width + 1)
        found.push(`${name}: ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
    return found;
  });
}

describe("the checkout and receipt in the buyer's language, in Chromium", () => {
  let t: TestApp;
  let browser: Browser;
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, clock, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    const v = await t.newVendor('Kiosk Software');
    productId = await monthlyTrial(v);
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The checkout in `locale`, filled in and paid with the test card: the form's page first, then the receipt's. */
  async function buy(page: Page, locale: string, shot: (name: string) => Promise<void>) {
    await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=DE&locale=${locale}`);
    await page.click('details.business summary');
    await shot('form');
    await page.fill('#email', `buyer-${locale}@example.com`);
    await page.fill('#cardNumber', '4242 4242 4242 4242');
    await page.fill('#cardExpiry', '12/34');
    await page.fill('#cardCvc', '123');
    await Promise.all([page.waitForURL(/./, { waitUntil: 'load' }), page.click('#pay')]);
    await page.locator('#receipt').waitFor();
    await shot('receipt');
  }

  for (const [locale, dir, thanks] of [
    ['de', 'ltr', 'Vielen Dank'],
    ['ar', 'rtl', 'شكرًا لك'],
    ['ja', 'ltr', 'ありがとうございました'],
  ] as const) {
    test(`in ${locale}: the form and the receipt say lang=${locale} dir=${dir}, are axe-clean, and mirror when right to left`, async () => {
      const page = await (await browser.newContext({ viewport: SCREEN_SIZES[0][1] })).newPage();
      await buy(page, locale, async (name) => {
        assert.deepEqual(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]), [
          locale,
          dir,
        ]);
        assert.deepEqual(await seriousViolations(page), [], `${name} in ${locale}`);
        // The price table's amounts sit at the end of the line: the right in ltr, the left in rtl.
        const [label, amount] = await Promise.all(
          ['td:first-child', 'td:last-child'].map(
            async (cell) => (await page.locator(`.box tr.total ${cell}`).first().boundingBox())!.x,
          ),
        );
        assert.equal(amount! < label!, dir === 'rtl', `${name}: label at ${label}, amount at ${amount}`);
        await screenshot(page, `${ARTIFACTS}checkout-lang-${locale}-${name}.png`, { fullPage: true });
      });
      assert.equal(await page.locator('h1').textContent(), thanks);
      await page.context().close();
    });
  }

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`the pseudo-locale, 40% longer, overflows nothing on the form and the receipt (${size})`, async () => {
      const page = await (await browser.newContext({ viewport, isMobile: size === 'phone' })).newPage();
      await buy(page, 'en-XA', async (name) => {
        assert.match((await page.locator('h1').textContent()) as string, /./);
        assert.deepEqual(await overflowing(page), [], `${name} at ${size}`);
        await screenshot(page, `${ARTIFACTS}checkout-lang-pseudo-${name}-${size}.png`, { fullPage: true });
      });
      await page.context().close();
    });
  }
});
