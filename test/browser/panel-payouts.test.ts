import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The panel's Payouts page in Chromium (issue 34, docs/decisions.md §22): a vendor sees its balance and
 * its statements, opens one and downloads its CSV; another vendor's statement is not found. Axe-clean,
 * shot at desktop and phone size (test-artifacts/panel-payouts-*.png).
 */
describe('the panel: balance and payout statements in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let other: TestVendor;
  let browser: Browser;
  let statementId: string;
  let othersStatement: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', {
      port,
      env: { BASE_URL: `http://127.0.0.1:${port}`, PLATFORM_FEE: '5%+0.50USD', PAYOUT_HOLD_DAYS: '0' },
    });
    v = await t.newVendor('Acme Software');
    other = await t.newVendor('Other Ltd');
    const today = new Date().toISOString().slice(0, 10);
    for (const [vendor, usd] of [
      [v, 49],
      [other, 10],
    ] as const) {
      const product = await vendor.product({
        type: 'ONETIME',
        name: 'Acme Desktop',
        prices: [{ currency: 'USD', value: usd }],
      });
      await vendor.buy(product.id, { email: 'greta@example.com', country: 'US', region: 'OR' });
    }
    statementId = (await t.services.payouts.create(v.vendor.id, 'sandbox', today))[0]!.id;
    othersStatement = (await t.services.payouts.create(other.vendor.id, 'sandbox', today))[0]!.id;
    // A later sale: the balance shows it until the next statement.
    const later = await v.product({ type: 'ONETIME', name: 'Acme Add-on', prices: [{ currency: 'USD', value: 20 }] });
    await v.buy(later.id, { email: 'greta@example.com', country: 'US', region: 'OR' });
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('balance, statements, one statement and its CSV, at desktop and phone size; another vendor’s statement is not found', async () => {
    const { token } = await t.services.panelInvites.issue(v.vendor.id);
    await t.services.panelInvites.accept(token, 'a long enough passphrase');
    for (const [size, viewport] of SCREEN_SIZES) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${t.url}/panel`);
      await page.fill('#email', v.vendor.email);
      await page.fill('#password', 'a long enough passphrase');
      await page.click('button[type="submit"]');
      await page.goto(`${t.url}/panel?env=sandbox`);
      await page.click('[data-testid="payouts-link"]');
      assert.equal(await page.locator('h1').textContent(), 'Payouts');
      await lookAtTaxReturns(page, size);
      await page.goto(`${t.url}/panel/payouts?env=sandbox`);
      // 20.00 paid in Oregon (no sales tax), less 5% and 0.50: 18.50 owed.
      assert.match((await page.locator('[data-testid="balance-USD"]').textContent())!, /USD.*\$18\.50/);
      assert.equal(await page.locator('[data-testid="statement"]').count(), 1);
      assert.deepEqual(await seriousViolations(page), [], `payouts (${size})`);
      await screenshot(page, `${ARTIFACTS}panel-payouts-${size}.png`, { fullPage: true });

      await page.click('[data-testid="statement"] a');
      assert.equal(await page.locator('h1').textContent(), 'Statement 1, USD');
      assert.equal(await page.locator('[data-testid="platform-fees"]').textContent(), '-$2.95');
      assert.equal(await page.locator('[data-testid="payable"]').textContent(), '$46.05');
      assert.deepEqual(await seriousViolations(page), [], `statement (${size})`);
      await screenshot(page, `${ARTIFACTS}panel-payouts-statement-${size}.png`, { fullPage: true });
      const csv = await page.evaluate(
        async (href) => (await fetch(href)).text(),
        (await page.locator('[data-testid="csv"]').getAttribute('href'))!,
      );
      assert.match(csv, /^total,TC-PO_\S+,1,USD,payable,,,,46\.05,/m);
      assert.match(
        csv,
        /^entry,TC-PO_\S+,1,USD,TC-EN_\S+,TC-TR_\S+,ONETIME_PAYMENT,\S+,49\.00,0\.00,0\.00,2\.95,46\.05$/m,
      );

      const pdf = await page.evaluate(
        async (href) => {
          const res = await fetch(href);
          return {
            type: res.headers.get('content-type'),
            head: new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5)),
          };
        },
        (await page.locator('[data-testid="pdf"]').getAttribute('href'))!,
      );
      assert.deepEqual(pdf, { type: 'application/pdf', head: '%PDF-' });
      assert.equal((await page.goto(`${t.url}/panel/payouts/${othersStatement}/pdf?env=sandbox`))?.status(), 404);
      const foreign = await page.goto(`${t.url}/panel/payouts/${othersStatement}?env=sandbox`);
      assert.equal(foreign?.status(), 404, "another vendor's statement");
      assert.equal((await page.goto(`${t.url}/panel/payouts/${othersStatement}/csv?env=sandbox`))?.status(), 404);
      assert.equal(
        (await page.goto(`${t.url}/panel/payouts/${statementId}?env=production`))?.status(),
        404,
        'the other environment',
      );
      await context.close();
    }
  });
});

/** The panel's Tax returns of this quarter (a vendor selling for itself), axe-clean, shot (test-artifacts/panel-taxes-*.png). */
async function lookAtTaxReturns(page: Page, size: string) {
  const now = new Date();
  const quarter = `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
  await page.goto(page.url().replace(/\/panel\/payouts.*$/, `/panel/taxes?env=sandbox&period=${quarter}`));
  assert.equal(await page.locator('h1').textContent(), 'Tax returns');
  assert.equal(await page.locator('[data-testid="tax-row"]').count(), 1, 'Oregon: one US row');
  assert.deepEqual(await seriousViolations(page), [], `tax returns (${size})`);
  await screenshot(page, `${ARTIFACTS}panel-taxes-${size}.png`, { fullPage: true });
}
