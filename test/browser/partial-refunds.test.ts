import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import type { Scope } from '../../src/domain/model.ts';
import { startTestApp, TEST_CARD, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * Refunding part of a payment in a real Chromium, in the vendor panel and in the admin tool: the vendor
 * changes the amount, writes a reason, and reads what is left; each step is shot at desktop and phone
 * size into test-artifacts/ and scanned with axe (no serious or critical violation).
 */
describe('partial refunds in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let scope: Scope;
  let cookie: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}`, PANEL_SIGNUP: 'open' } });
    browser = await sharedChromium();
    const signedUp = await t.services.panel.signUp({
      company: 'Acme Software',
      email: 'owner@acme.test',
      password: 'a long enough passphrase',
    });
    cookie = signedUp.cookie;
    scope = { vendorId: (await t.services.panel.session(cookie))!.user.vendorId, environment: 'sandbox' };
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const buy = async (email: string) => {
    const product = await t.services.catalog.createProduct(scope, {
      name: 'Acme Pro',
      type: 'ONETIME',
      prices: [{ currency: 'USD', value: 40 }],
    });
    const result = await t.services.purchases.purchase(scope, {
      productId: product.id,
      email,
      country: 'US',
      card: TEST_CARD,
    });
    assert.equal(result.status, 'PAID');
    return (result as { transaction: { id: string } }).transaction.id;
  };
  const shoot = async (page: Page, name: string) => {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `${name}: nothing wider than the screen (${overflow}px)`);
    assert.deepEqual(await seriousViolations(page), [], `${name}: no serious or critical accessibility violation`);
    await screenshot(page, `${ARTIFACTS}${name}.png`, { fullPage: true });
  };

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`panel (${size}): 15 of 40 refunded with a reason, the notice says 25 is left, the ledger shows the reason`, async () => {
      const id = await buy(`panel-${size}@example.com`);
      const context = await browser.newContext({ viewport });
      await context.addCookies([{ name: 'ot_panel', value: cookie, url: `${t.url}/panel` }]);
      const page = await context.newPage();
      await page.goto(`${t.url}/panel/transactions/${id}?env=sandbox`);
      await page.click('[data-testid="refund"]');
      assert.equal(await page.inputValue('#amount'), '40.00');
      await page.fill('#amount', '15');
      await page.fill('#reason', 'The customer kept one of the two seats');
      await shoot(page, `partial-refund-panel-confirm-${size}`);
      await page.click('[data-testid="confirm"]');
      assert.equal(
        await page.locator('[role="status"]').textContent(),
        'Refunded. $25.00 of the payment of ' + (await paidOn(id)) + ' is left to refund.',
      );
      assert.equal(
        await page.locator('[data-testid="reason"]').textContent(),
        'The customer kept one of the two seats',
      );
      await shoot(page, `partial-refund-panel-done-${size}`);
      await page.click('[data-testid="refund"]');
      await page.fill('#amount', '26');
      await page.click('[data-testid="confirm"]');
      assert.match((await page.locator('[role="alert"]').textContent())!, /more than is left/);
      await shoot(page, `partial-refund-panel-refused-${size}`);
      await context.close();
    });

    test(`admin tool (${size}): 5.50 refunded with a reason, then what is left shown on the page`, async () => {
      const id = await buy(`admin-${size}@example.com`);
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(t.services.hostedUrl('admin', scope, scope.vendorId));
      await page.goto(`${page.url()}/tx/${id}`);
      assert.match((await page.locator('[data-testid="refundable"]').textContent())!, /Up to \$40\.00 can be refunded/);
      await page.fill('#amount', '5.50');
      await page.fill('#reason', 'Broken build');
      await shoot(page, `partial-refund-admin-form-${size}`);
      await page.click('[data-testid="refund"]');
      assert.match(
        (await page.locator('[role="status"]').textContent())!,
        /Refunded\. \$34\.50 of the payment of .* is left to refund\./,
      );
      assert.match(
        (await page.locator('[data-testid="refundable"]').textContent())!,
        /\$5\.50 already taken back\. Up to \$34\.50 can be refunded/,
      );
      await shoot(page, `partial-refund-admin-done-${size}`);
      await context.close();
    });
  }

  const paidOn = async (id: string) =>
    (await t.services.store.entries.listForTransaction(id))[0]!.createdAt.slice(0, 10);
});
