import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, freePort, launchChromium } from '../../support/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * The vendor panel in a real Chromium: a vendor signs up, creates a sandbox product, creates a
 * sandbox credential, copies it from the page and calls the API with it. Screenshots go to test-artifacts/.
 */
describe('vendor panel in Chromium', () => {
  let t: TestApp;
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('sign up, create a sandbox product and a credential, copy it and call the API with it', async () => {
    const context = await browser.newContext({ viewport: { width: 430, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    const page = await context.newPage();
    await page.goto(`${t.url}/panel`);
    await page.click('text=Create an account');
    await page.fill('#company', 'Acme Software');
    await page.fill('#email', 'founder@acme.test');
    await page.fill('#password', 'a long enough passphrase');
    await page.screenshot({ path: `${ARTIFACTS}panel-signup.png`, fullPage: true });
    await page.click('button[type="submit"]');
    assert.equal(await page.locator('h1').textContent(), 'Sandbox');

    await page.click('summary:has-text("New product")');
    await page.fill('#name', 'Acme Pro');
    await page.selectOption('#type', 'ONETIME');
    await page.fill('#prices', 'USD 20, EUR 18.50');
    await page.click('button:has-text("Create the product")');
    assert.match((await page.locator('[role="status"]').textContent())!, /product is created/);
    const productId = await page.locator('[data-testid="product"]').getAttribute('data-id');
    assert.match(productId!, /^TC-PR_/);

    await page.click('[data-testid="new-credential"]');
    await page.locator('[data-testid="issued"] button[data-copy]').click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, await page.locator('[data-testid="authorization"]').textContent());
    await page.screenshot({ path: `${ARTIFACTS}panel-credential.png`, fullPage: true });

    const res = await fetch(`${t.url}/sandbox/v1/transactions/nobody%40example.com`, { headers: { authorization: copied } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), []);
    const price = await fetch(`${t.url}/sandbox/public/v1/price/${productId}?country=DE`);
    assert.equal(price.status, 200);

    await page.click('[data-testid="transactions"]');
    assert.equal(await page.locator('h1').textContent(), 'Transactions');
    await context.close();
  });
});
