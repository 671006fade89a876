import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { businessPurchase, signedUpInBrowser } from '../helpers/panel-world.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The panel pages issue 36 changed, in a real Chromium at desktop and phone size (shot into
 * test-artifacts/, scanned with axe): a transaction's detail, whose copy buttons put the licence key
 * and the management link on the clipboard; the phone's tabs, every one whole on the screen; the
 * e-mail preview, whose e-mail is laid out at its own width even in a full-page capture; and a new
 * vendor's overview, which says No sales yet.
 */
describe('panel detail pages in Chromium', () => {
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

  /** Nothing wider than the screen, and no serious axe finding (the preview's frame is scanned by panel-emails). */
  async function fits(page: Page, name: string) {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `${name}: nothing wider than the screen (${overflow}px)`);
    assert.deepEqual(await seriousViolations(page, { exclude: ['iframe'] }), [], `${name}: no serious axe finding`);
  }

  /** Every tab whole on the screen and on one line: none cut at the edge, none broken mid-word. */
  async function tabsWhole(page: Page, name: string, width: number) {
    const tabs = await page
      .locator('.panel nav a')
      .evaluateAll((links) =>
        links.map((a) => ({ text: a.textContent, box: a.getBoundingClientRect().toJSON() as DOMRect })),
      );
    assert.equal(tabs.length, 8);
    const lineHeight = Math.min(...tabs.map((tab) => tab.box.height));
    for (const { text, box } of tabs) {
      assert.ok(
        box.left >= 0 && box.right <= width,
        `${name}: ${text} is whole on the screen (${box.left}–${box.right})`,
      );
      assert.ok(box.height < lineHeight * 1.5, `${name}: ${text} is on one line (${box.height}px)`);
    }
  }

  test('a transaction, the tabs, the e-mail preview and an empty overview, at desktop and phone size', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    const page = await context.newPage();
    const scope = await signedUpInBrowser(page, t.url);

    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      await page.goto(`${t.url}/panel?env=sandbox`);
      assert.equal(await page.locator('[data-testid="no-sales"]').isVisible(), true, `${size}: No sales yet`);
      await tabsWhole(page, `overview (${size})`, viewport.width);
      await screenshot(page, `${ARTIFACTS}panel-overview-empty-${size}.png`, { fullPage: true });
      await fits(page, `empty overview (${size})`);
    }

    const bought = await businessPurchase(t, scope);

    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      await page.goto(`${t.url}/panel/transactions/${bought.id}?env=sandbox`);
      await page.click('[data-testid="copy-licence"]');
      assert.equal(
        await page.evaluate(() => navigator.clipboard.readText()),
        bought.licence,
        `${size}: the key copied`,
      );
      await page.click('[data-testid="copy-manage-link"]');
      const link = await page.evaluate(() => navigator.clipboard.readText());
      assert.match(link, /\/sandbox\/manage\/\S+$/, `${size}: the management link copied`);
      assert.equal(await page.locator('[data-testid="copy-manage-link"]').textContent(), 'Copied');
      await tabsWhole(page, `transaction (${size})`, viewport.width);
      await screenshot(page, `${ARTIFACTS}panel-transaction-detail-${size}.png`, { fullPage: true });
      await fits(page, `transaction (${size})`);

      await page.goto(`${t.url}/panel/emails/preview/RECEIPT?env=sandbox`);
      // Taken as the was, a full-page capture: the e-mail must still be laid out at its own width.
      await screenshot(page, `${ARTIFACTS}panel-email-preview-full-${size}.png`, { fullPage: true });
      const frame = (await page.locator('[data-testid="email-html"]').boundingBox())!;
      const card = await page
        .frameLocator('[data-testid="email-html"]')
        .locator('body > table table')
        .first()
        .evaluate((e) => e.getBoundingClientRect().width);
      const expected = Math.min(560, frame.width - 2 * 12 - 2);
      assert.ok(card >= expected - 2, `${size}: the e-mail is ${card}px wide in a ${frame.width}px frame`);
      await fits(page, `preview (${size})`);
    }
    await context.close();
  });
});
