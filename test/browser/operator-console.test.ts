import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The operator's console in Chromium (issue 34, docs/decisions.md §26): signed in with a login from the
 * CLI, every page of it axe-clean and shot at desktop and phone size (test-artifacts/operator-*.png).
 */
describe('the operator console in Chromium', () => {
  let t: TestApp;
  let acme: TestVendor;
  let other: TestVendor;
  let browser: Browser;
  let password: string;
  let statementId: string;
  const quarter = () => {
    const now = new Date();
    return `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
  };

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', {
      port,
      env: { BASE_URL: `http://127.0.0.1:${port}`, PLATFORM_FEE: '5%+0.50USD', PAYOUT_HOLD_DAYS: '0' },
    });
    acme = await t.newVendor('Acme Software');
    other = await t.newVendor('Nordlicht Apps GmbH');
    const newcomer = await t.services.catalog.createVendor({
      name: 'Newcomer',
      email: 'new@comer.test',
      productionEnabled: false,
    });
    await t.services.catalog.suspendVendor(newcomer.id, { reason: 'Unusual refunds', stopRenewals: true });
    for (const [vendor, usd, country, region] of [
      [acme, 49, 'US', 'OR'],
      [acme, 19, 'GB', undefined],
      [other, 10, 'AU', undefined],
    ] as const) {
      const product = await vendor.product({
        type: 'ONETIME',
        name: 'Desktop',
        prices: [{ currency: 'USD', value: usd }],
      });
      await vendor.buy(product.id, { email: 'greta@example.com', country, region, currency: 'USD' });
    }
    statementId = (
      await t.services.payouts.create(acme.vendor.id, 'sandbox', new Date().toISOString().slice(0, 10))
    )[0]!.id;
    password = (await t.services.operators.create('ops@opentill.test')).password;
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function look(page: Page, name: string, size: string, heading: string) {
    assert.equal(await page.locator('h1').textContent(), heading, name);
    assert.deepEqual(await seriousViolations(page), [], `${name} (${size})`);
    await screenshot(page, `${ARTIFACTS}operator-${name}-${size}.png`, { fullPage: true });
  }

  test('sign-in, vendors, a vendor, balances, payouts, a statement and a quarter’s returns, at desktop and phone size', async () => {
    for (const [size, viewport] of SCREEN_SIZES) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${t.url}/operator`);
      await look(page, 'signin', size, 'Sign in');
      await page.fill('#email', 'ops@opentill.test');
      await page.fill('#password', password);
      await page.click('button[type="submit"]');
      await look(page, 'vendors', size, 'Vendors');
      assert.equal(await page.locator('tbody tr').count(), 3);
      assert.match((await page.locator('tbody tr').last().textContent())!, /Suspended, renewals stopped/);

      await page.click(`a[href^="/operator/vendors/${acme.vendor.id}"]`);
      await page.fill('#fee', '4%');
      await page.click('[data-testid="save-fee"]');
      assert.match((await page.locator('[role="status"]').textContent())!, /platform fee is saved/);
      await look(page, 'vendor', size, 'Acme Software');
      await page.fill('#fee', '');
      await page.click('[data-testid="save-fee"]');

      await page.goto(`${t.url}/operator/balances?env=sandbox`);
      // Acme's sales are on its statement; Nordlicht's 10.00 (GST on top) less 5% and 0.50 is still owed.
      assert.match((await page.locator(`[data-testid="balance-${other.vendor.id}-USD"]`).textContent())!, /\$9\.00/);
      assert.equal(await page.locator(`[data-testid^="balance-${acme.vendor.id}"]`).count(), 0);
      await look(page, 'balances', size, 'Balances');

      await page.goto(`${t.url}/operator/payouts?env=sandbox`);
      await look(page, 'payouts', size, 'Payouts');
      await page.goto(`${t.url}/operator/payouts/${statementId}?env=sandbox`);
      await look(page, 'statement', size, 'Acme Software: statement 1, USD');

      await page.goto(`${t.url}/operator/reports?env=sandbox`);
      await page.fill('#period', quarter());
      await page.click('form.filters button[type="submit"]');
      assert.equal(await page.locator('[data-testid="tax-row"]').count(), 3);
      await look(page, 'reports', size, 'Tax returns');
      await context.close();
    }
  });
});
