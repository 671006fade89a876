import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, TEST_CARD, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The vendor panel in a real Chromium: a vendor signs up, creates a sandbox product and a credential
 * (copied from the page, used against the API; a reload creates no second one), then every panel page
 * is shot at desktop (1280×800) and phone (390×844) size into test-artifacts/ and scanned with axe
 * (no serious or critical violation). A refund asks for confirmation before anything happens.
 */
describe('vendor panel in Chromium', () => {
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

  async function accessible(page: Page, name: string) {
    assert.deepEqual(await seriousViolations(page), [], `${name}: no serious or critical accessibility violation`);
  }

  test('sign up, create a product and a credential (once, even after a reload), refund with confirmation; every page at desktop and phone size', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    const page = await context.newPage();
    await page.goto(`${t.url}/panel`);
    await page.click('text=Create an account');
    await page.fill('#company', 'Acme Software');
    await page.fill('#email', 'founder@acme.test');
    await page.fill('#password', 'a long enough passphrase');
    await page.click('button[type="submit"]');
    assert.equal(await page.locator('h1').textContent(), 'Overview');
    const vendorId = (await page.locator('[data-testid="vendor-id"]').textContent())!;
    assert.match(vendorId, /^TC-VE_/);

    await page.click('nav >> text=Products');
    await page.fill('#name', 'Acme Pro');
    await page.selectOption('#type', 'ONETIME');
    await page.fill('#prices', 'USD 49, EUR 45');
    await page.click('button:has-text("Create the product")');
    assert.match((await page.locator('[role="status"]').textContent())!, /product is created/);
    const productId = (await page.locator('[data-testid="product"]').getAttribute('data-id'))!;
    const monthly = await t.services.catalog.createProduct(
      { vendorId, environment: 'sandbox' },
      {
        name: 'Acme Cloud',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 12 }],
      },
    );

    await page.click('nav >> text=Developers');
    await page.click('[data-testid="new-credential"]');
    await page.locator('[data-testid="issued"] button[data-copy]').click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, await page.locator('[data-testid="authorization"]').textContent());
    await page.reload();
    assert.equal(await page.locator('[data-testid="issued"]').count(), 0, 'the secret is shown once');
    assert.equal(await page.locator('[data-testid="credential"]').count(), 1, 'a reload creates no second credential');
    const res = await fetch(`${t.url}/sandbox/v1/transactions/nobody%40example.com`, {
      headers: { authorization: copied },
    });
    assert.equal(res.status, 200);

    const scope = { vendorId, environment: 'sandbox' as const };
    const bought = [];
    for (const [product, email, country, currency] of [
      [productId, 'ann@example.com', 'US', 'USD'],
      [productId, 'eva@example.com', 'DE', 'EUR'],
      [monthly.id, 'carl@example.com', 'US', 'USD'],
      [monthly.id, 'dora@example.com', 'GB', 'USD'],
    ] as const) {
      const result = await t.services.purchases.purchase(scope, {
        productId: product,
        email,
        country,
        currency,
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PAID');
      if (result.status === 'PAID') bought.push(result.transaction.id);
    }

    // A refund goes through its confirmation page: nothing is refunded before its button.
    await page.goto(`${t.url}/panel/transactions/${bought[0]}?env=sandbox`);
    await page.click('[data-testid="refund"]');
    assert.equal(await page.inputValue('#amount'), '49.00');
    assert.equal((await page.locator('[data-testid="confirm"]').textContent())!, 'Refund');
    assert.equal((await t.services.store.entries.listForTransaction(bought[0]!)).length, 1, 'nothing refunded yet');
    await screenshot(page, `${ARTIFACTS}panel-refund-confirm-desktop.png`, { fullPage: true });
    await page.click('[data-testid="confirm"]');
    assert.match((await page.locator('[role="status"]').textContent())!, /Refunded\. Nothing is left to refund/);
    assert.equal((await t.services.store.entries.listForTransaction(bought[0]!)).length, 2);

    const pages: [string, string][] = [
      ['overview', '/panel?env=sandbox'],
      ['transactions', '/panel/transactions?env=sandbox'],
      ['transaction', `/panel/transactions/${bought[0]}?env=sandbox`],
      ['customers', '/panel/customers?env=sandbox'],
      ['products', '/panel/products?env=sandbox'],
      ['coupons', '/panel/coupons?env=sandbox'],
      ['developers', '/panel/developers?env=sandbox'],
      ['settings', '/panel/settings?env=sandbox'],
    ];
    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      for (const [name, path] of pages) {
        await page.goto(`${t.url}${path}`);
        assert.equal(
          await page.locator('[data-testid="switch"]').isVisible(),
          true,
          `${name}: the environment switch is visible`,
        );
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.ok(overflow <= 0, `${name} (${size}): nothing wider than the screen (${overflow}px)`);
        const tab = (await page.locator('nav a[aria-current="page"]').boundingBox())!;
        assert.ok(
          tab.x >= 0 && tab.x + tab.width <= viewport.width,
          `${name} (${size}): the current tab is on the screen (${tab.x}+${tab.width})`,
        );
        if (name === 'transactions' || name === 'customers') {
          const field = (await page.locator('#q').boundingBox())!;
          const search = (await page.locator('form[role="search"] button[type="submit"]').boundingBox())!;
          assert.equal(search.height, field.height, `${name} (${size}): the Search button is as tall as the fields`);
        }
        await screenshot(page, `${ARTIFACTS}panel-${name}-${size}.png`, { fullPage: true });
        await accessible(page, `${name} (${size})`);
      }
    }

    await page.goto(`${t.url}/panel/developers?env=sandbox`);
    await page.click('[data-testid="transactions"]');
    assert.equal(await page.locator('h1').textContent(), 'Transactions');
    await context.close();
  });
});
