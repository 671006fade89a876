import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fixedClock } from '../../src/domain/clock.ts';
import { freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { businessPurchase, signedUpInBrowser } from '../helpers/panel-world.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * Pausing in a real Chromium (docs/decisions.md §41): the vendor pauses from the transaction page and
 * lets customers pause in Settings; the customer's page shows the pause and resumes it. Every state is
 * axe-clean and fits a desktop and a phone; screenshots go to scratch/shots/ (PAUSE_SHOTS) to look at.
 */
const SHOTS = process.env.PAUSE_SHOTS;
const DAY = 86_400_000;

describe('pause and resume in Chromium', () => {
  const clock = fixedClock(new Date('2030-05-02T08:00:00.000Z'));
  let t: TestApp;
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', {
      port,
      clock,
      env: { BASE_URL: `http://127.0.0.1:${port}`, PANEL_SIGNUP: 'open' },
    });
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** No serious axe finding (unless `axe` is false), and at both sizes nothing wider than the screen and a screenshot when asked for. */
  async function looked(page: Page, name: string, axe = true) {
    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `${name} (${size}): nothing wider than the screen (${overflow}px)`);
      // The markup is the same at both sizes: axe reads it once; the layout is checked at each.
      if (axe && size === 'desktop')
        assert.deepEqual(await seriousViolations(page), [], `${name}: no serious axe finding`);
      if (SHOTS) await screenshot(page, `${SHOTS}/pause-${name}-${size}.png`, { fullPage: true });
    }
  }

  test('the vendor pauses until a date, sees it take effect and resumes; a customer allowed to pause does the same', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const scope = await signedUpInBrowser(page, t.url);
    const bought = await businessPurchase(t, scope);
    const detail = `${t.url}/panel/transactions/${bought.id}?env=sandbox`;

    await page.goto(detail);
    await looked(page, 'panel-form');
    await page.fill('#resumeOn', '2099-03-01');
    await page.click('[data-testid="pause"]');
    await page.waitForURL(/done=paused/);
    assert.match((await page.locator('[data-testid="pause-state"]').textContent())!, /until 2099-03-01 00:00 UTC/);
    await looked(page, 'panel-scheduled', false); // a paragraph and a form button, as in the paused state axe reads
    clock.advance(40 * DAY);
    // The panel's session has ended by then (12 hours): signed in again.
    await page.goto(`${t.url}/panel/signin`);
    await page.fill('#email', 'founder@acme.test');
    await page.fill('#password', 'a long enough passphrase');
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/panel/);
    await page.goto(detail);
    assert.match((await page.locator('[data-testid="pause-state"]').textContent())!, /^Paused since/);
    await looked(page, 'panel-paused');
    await page.click('[data-testid="resume"]');
    await page.waitForURL(/done=resumed/);
    assert.equal(await page.locator('[data-testid="pause-state"]').count(), 0);
    // The new period is charged (what the worker does within seconds); then there is something to pause again.
    assert.equal((await t.services.billing.runDue({ sandboxVendorId: scope.vendorId })).renewed, 1);

    await page.goto(`${t.url}/panel/settings?env=sandbox`);
    await page.check('input[name="customerPause"]');
    await page.click('form.narrow button[type="submit"]');
    await page.waitForURL(/done=settings/);

    const customer = await context.newPage();
    await customer.goto(t.services.hostedUrl('manage', scope, 'ann@example.com'));
    await looked(customer, 'manage-offer');
    await customer.click('[data-testid="pause"]');
    await customer.waitForURL(/done=paused/);
    assert.match((await customer.locator('[data-testid="status"]').textContent())!, /then paused until you resume it/);
    await looked(customer, 'manage-scheduled', false); // a paragraph and a form button, as in the paused state axe reads
    clock.advance(40 * DAY);
    await customer.goto(t.services.hostedUrl('manage', scope, 'ann@example.com'));
    assert.match((await customer.locator('[data-testid="status"]').textContent())!, /^Paused: nothing is charged/);
    await looked(customer, 'manage-paused');
    await customer.click('[data-testid="resume"]');
    await customer.waitForURL(/done=resumed/);
    assert.equal(await customer.locator('[data-testid="resume-hint"]').count(), 0);
    await context.close();
  });
});
