import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { ARTIFACTS, freePort, screenshot } from '../../support/chromium.ts';
import { faultGateway } from '../helpers/fault-gateway.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The payment network loses its answer while a customer pays on the hosted checkout: the page says
 * the payment is being confirmed and asks again by itself; once the network answers, the same page
 * turns into the receipt. One payment, whatever the customer does meanwhile.
 */
describe('the hosted checkout while a payment is being confirmed, in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let productId: string;
  const faults = faultGateway(() => t.services.database);

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', {
      port,
      env: { BASE_URL: `http://127.0.0.1:${port}` },
      gateways: { sandbox: faults.gateway },
    });
    faults.use(sandboxGateway(t.services.database.kysely));
    v = await t.newVendor('Acme Software');
    productId = (await v.product({ type: 'ONETIME', name: 'Acme Pro', prices: [{ currency: 'USD', value: 20 }] })).id;
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [size, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 375, height: 740 }],
  ] as const) {
    test(`a lost answer shows "Confirming your payment", which turns into the receipt by itself (${size})`, async () => {
      const page = await browser.newPage({ locale: 'en-US', viewport });
      await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US`);
      const email = `confirming-${size}@example.com`;
      await page.locator('#email').fill(email);
      await page.locator('#cardNumber').fill('4242 4242 4242 4242');
      await page.locator('#cardExpiry').fill('12/34');
      await page.locator('#cardCvc').fill('123');
      faults.arm('lost-answer');
      await page.locator('#pay').click();
      await page.getByRole('heading', { name: 'Confirming your payment' }).waitFor();
      await screenshot(page, `${ARTIFACTS}checkout-confirming-${size}.png`, { fullPage: true });
      // The page refreshes itself and asks again: the network now answers with the charge it made.
      await page.getByText('received', { exact: false }).waitFor({ timeout: 15_000 });
      await screenshot(page, `${ARTIFACTS}checkout-confirmed-receipt-${size}.png`, { fullPage: true });
      const listed = (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as unknown[];
      assert.equal(listed.length, 1, 'one purchase');
      await page.close();
    });
  }
});
