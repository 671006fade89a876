import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The pages of PANEL_SIGNUP in Chromium (docs/decisions.md §19), each at desktop (1280×800) and phone
 * (390×844) size: nothing wider than the screen, no serious or critical axe finding, a screenshot in
 * test-artifacts/signup-*.png. Closed: the sign-up page says how the operator adds a vendor, and
 * sign-in does not offer it. Invite: an invitation's form, which signs up. Open: a new vendor's
 * production pages say why production is not there and what to ask the operator.
 */
describe('panel sign-up pages in Chromium', () => {
  const apps: Partial<Record<'closed' | 'invite' | 'open', TestApp>> = {};
  let browser: Browser;

  before(async () => {
    for (const mode of ['closed', 'invite', 'open'] as const)
      apps[mode] = await startTestApp('sqlite', { env: { PANEL_SIGNUP: mode } });
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    for (const app of Object.values(apps)) await app.close();
  });

  /** At both sizes: fits the screen, no serious axe finding, a screenshot. */
  async function looked(page: Page, name: string) {
    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `${name} (${size}): nothing wider than the screen (${overflow}px)`);
      assert.deepEqual(
        await seriousViolations(page),
        [],
        `${name} (${size}): no serious or critical accessibility violation`,
      );
      await screenshot(page, `${ARTIFACTS}signup-${name}-${size}.png`, { fullPage: true });
    }
  }

  async function fresh() {
    const context = await browser.newContext({ locale: 'en-US', viewport: SCREEN_SIZES[0][1] });
    return { context, page: await context.newPage() };
  }

  test('closed: the sign-up page says how the operator adds a vendor, and sign-in does not link to it', async () => {
    const { context, page } = await fresh();
    try {
      const res = await page.goto(`${apps.closed!.url}/panel/signup`);
      assert.equal(res?.status(), 403);
      assert.equal(await page.locator('h1').textContent(), 'Sign-up is closed');
      assert.equal(await page.locator('form').count(), 0);
      await looked(page, 'closed');
      await page.click('text=Sign in');
      assert.equal(await page.locator('h1').textContent(), 'Sign in');
      assert.equal(await page.locator('a[href="/panel/signup"]').count(), 0);
      await looked(page, 'signin-closed');
    } finally {
      await context.close();
    }
  });

  test('invite: without an invitation the page says how to get one; the invitation signs up and opens the panel', async () => {
    const t = apps.invite!;
    const { context, page } = await fresh();
    try {
      assert.equal((await page.goto(`${t.url}/panel/signup`))?.status(), 403);
      assert.equal(await page.locator('h1').textContent(), 'Sign-up is by invitation');
      await looked(page, 'by-invitation');

      const { token } = await t.services.panelInvites.issueSignUp('founder@invited.test');
      assert.equal((await page.goto(`${t.url}/panel/signup/${token}`))?.status(), 200);
      await page.fill('#company', 'Invited Software');
      await looked(page, 'invited');
      await page.fill('#password', 'a long enough passphrase');
      await page.click('button[type="submit"]');
      assert.equal(await page.locator('h1').textContent(), 'Overview');
      assert.match((await page.locator('.who').textContent())!, /Invited Software\s+founder@invited\.test/);
    } finally {
      await context.close();
    }
  });

  test('open: a new vendor works in the sandbox; its production pages say why production is not there and what to ask', async () => {
    const { context, page } = await fresh();
    try {
      await page.goto(`${apps.open!.url}/panel/signin`);
      await page.click('text=Create an account');
      assert.match((await page.locator('#sandbox-first').textContent())!, /works in the sandbox/);
      await looked(page, 'open');
      await page.fill('#company', 'Open Software');
      await page.fill('#email', 'founder@open.test');
      await page.fill('#password', 'a long enough passphrase');
      await page.click('button[type="submit"]');
      assert.equal(await page.locator('h1').textContent(), 'Overview');
      const vendorId = (await page.locator('[data-testid="vendor-id"]').textContent())!;

      await page.click('[data-testid="env-production"]');
      assert.equal(await page.locator('h1').textContent(), 'Production is not enabled');
      assert.match(
        (await page.locator('[data-testid="production-closed"]').textContent())!,
        new RegExp(`opentill vendor enable-production --vendor ${vendorId}`),
      );
      await looked(page, 'production-closed');
      await page.click('nav >> text=Products');
      assert.equal(await page.locator('h1').textContent(), 'Production is not enabled');
      await page.click('text=Go to the sandbox');
      assert.equal(await page.locator('h1').textContent(), 'Overview');
    } finally {
      await context.close();
    }
  });
});
