import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { faultGateway } from '../helpers/fault-gateway.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The hosted checkout as a buyer uses it, in Chromium: the price follows the country, so Pay right
 * after a change of country charges what is shown; a trial says what is due today and what comes
 * when; every invalid field is marked at once; the pages pass an axe-core scan. Screenshots at
 * desktop and phone sizes go to test-artifacts/.
 */

describe('checkout UX in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let productId: string;
  let trialId: string;
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
    productId = (
      await v.product({
        type: 'ONETIME',
        name: 'Acme Pro',
        prices: [
          { currency: 'USD', value: 45 },
          { currency: 'EUR', value: 45 },
        ],
      })
    ).id;
    trialId = (
      await v.product({
        type: 'SUBSCRIPTION',
        name: 'Acme Cloud',
        chargeFrequency: 'MONTHLY',
        trialDays: 14,
        prices: [{ currency: 'USD', value: 15 }],
      } as never)
    ).id;
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page in a context of its own: axe-core opens its own pages in the page's context. */
  const newPage = async (options: Parameters<Browser['newContext']>[0]) =>
    (await browser.newContext(options)).newPage();

  const fillCard = async (page: Page, email: string) => {
    await page.locator('#email').fill(email);
    await page.locator('#cardNumber').pressSequentially('4242424242424242');
    await page.locator('#cardExpiry').fill('12/34');
    await page.locator('#cardCvc').fill('123');
  };

  test('the checkout HTML stays under 30 KB', async () => {
    const res = await fetch(`${t.url}/sandbox/payment/product/${productId}?country=US`);
    const bytes = Buffer.byteLength(await res.text());
    assert.equal(res.status, 200);
    assert.ok(bytes < 30_000, `${bytes} bytes`);
  });

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`changing the country to Germany updates price and tax, and Pay at once charges it: a receipt, no 409 (${size})`, async () => {
      const page = await newPage({ locale: 'en-US', viewport });
      const statuses: number[] = [];
      page.on('response', (r) => statuses.push(r.status()));
      await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US`);
      assert.equal(await page.locator('[data-testid="sandbox-badge"]').count(), 1);
      assert.match(
        (await page.getByLabel('Sandbox test cards').textContent())!,
        /4242 4242 4242 4242 Visa/,
        'test cards spaced as printed',
      );
      assert.equal(await page.locator('#country option:checked').textContent(), 'United States');
      assert.equal(await page.locator('[data-testid="total"]').textContent(), '$45.00');
      const email = `germany-${size}@example.com`;
      await fillCard(page, email);
      assert.equal(await page.locator('#cardNumber').inputValue(), '4242 4242 4242 4242', 'spaced in groups of four');
      assert.equal(await page.locator('#card-brand').textContent(), 'Visa');
      await page.locator('#country').selectOption('DE');
      await page.locator('#pay').click();
      await page.locator('#receipt').waitFor();
      assert.match((await page.locator('#receipt').textContent())!, /€53\.55/);
      assert.equal(await page.locator('[data-testid="sandbox-badge"]').count(), 1, 'the receipt says it was a test');
      assert.ok(!statuses.some((s) => s >= 400), `no error answers: ${statuses.join(',')}`);
      await screenshot(page, `${ARTIFACTS}checkout-ux-receipt-${size}.png`, { fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], 'receipt');
      const listed = (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as {
        currency: string;
        country: string;
      }[];
      assert.deepEqual(
        listed.map((tx) => [tx.currency, tx.country]),
        [['EUR', 'DE']],
      );
      await page.close();
    });

    test(`the price table follows the country before Pay, and the page passes axe-core (${size})`, async () => {
      const page = await newPage({ locale: 'en-US', viewport });
      await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US`);
      await page.locator('#country').selectOption('DE');
      await page.locator('[data-testid="total"]', { hasText: '€53.55' }).waitFor();
      assert.match((await page.locator('#price').textContent())!, /VAT \(19%\)/);
      assert.equal(await page.locator('#pay').textContent(), 'Pay €53.55');
      assert.equal(await page.locator('input[name="expectedTotal"]').inputValue(), '5355');
      await screenshot(page, `${ARTIFACTS}checkout-ux-germany-${size}.png`, { fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], 'checkout');
      await page.close();
    });

    test(`every invalid field is marked at once and the first one focused (${size})`, async () => {
      const page = await newPage({ locale: 'en-US', viewport });
      await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US`);
      await page.locator('#email').fill('not-an-email');
      await page.locator('#zipCode').fill('9410');
      await page.locator('#cardNumber').fill('4242 4242 4242 4241');
      await page.locator('#cardExpiry').fill('13/34');
      await page.locator('#pay').click();
      // The form's script marks the fields in its submit handler: on a busy machine, after the click returns.
      await page.locator('#email[aria-invalid="true"]').waitFor();
      for (const id of ['email', 'zipCode', 'cardNumber', 'cardExpiry', 'cardCvc']) {
        assert.equal(await page.locator(`#${id}`).getAttribute('aria-invalid'), 'true', id);
        const describedBy = (await page.locator(`#${id}`).getAttribute('aria-describedby'))!;
        assert.ok((await page.locator(`#${describedBy}`).textContent())!.length > 10, `${id} has a message`);
      }
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'email');
      await screenshot(page, `${ARTIFACTS}checkout-ux-invalid-${size}.png`, { fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], 'checkout with errors');
      // Fixed, the marks go and the payment goes through.
      await page.locator('#email').fill(`fixed-${size}@example.com`);
      await page.locator('#zipCode').fill('94103');
      await page.locator('#cardNumber').fill('4242 4242 4242 4242');
      await page.locator('#cardExpiry').fill('12/34');
      await page.locator('#cardCvc').fill('123');
      await page.locator('#pay').click();
      await page.locator('#receipt').waitFor();
      await page.close();
    });

    test(`a trial shows what is due today and what is charged when (${size})`, async () => {
      const page = await newPage({ locale: 'en-US', viewport });
      await page.goto(`${t.url}/sandbox/payment/product/${trialId}?country=US`);
      assert.equal(await page.locator('[data-testid="due-today"]').textContent(), '$0.00');
      assert.match(
        (await page.locator('[data-testid="then"]').textContent())!,
        /^Then \$15\.00 every month from \w+ \d{1,2}, \d{4}\.$/,
      );
      assert.equal(await page.locator('#pay').textContent(), 'Start free trial');
      await screenshot(page, `${ARTIFACTS}checkout-ux-trial-${size}.png`, { fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], 'trial checkout');
      await page.close();
    });
  }

  test('without JavaScript a changed country shows the new price first, keeping what was typed, then pays', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US`);
    await page.locator('#email').fill('nojs@example.com');
    await page.locator('#country').selectOption('DE');
    await page.locator('#cardNumber').fill('4242424242424242');
    await page.locator('#cardExpiry').fill('12/34');
    await page.locator('#cardCvc').fill('123');
    await page.locator('#pay').click();
    await page.locator('#error').waitFor();
    assert.match((await page.locator('#error').textContent())!, /Check the new total and pay/);
    assert.equal(await page.locator('[data-testid="total"]').textContent(), '€53.55');
    assert.equal(await page.locator('#email').inputValue(), 'nojs@example.com');
    assert.equal(await page.locator('#country').inputValue(), 'DE');
    await page.locator('#cardNumber').fill('4242424242424242');
    await page.locator('#cardExpiry').fill('12/34');
    await page.locator('#cardCvc').fill('123');
    await page.locator('#pay').click();
    await page.locator('#receipt').waitFor();
    assert.match((await page.locator('#receipt').textContent())!, /€53\.55/);
    await context.close();
  });

  test('the page that says a payment is being confirmed passes axe-core', async () => {
    const page = await newPage({ locale: 'en-US', viewport: SCREEN_SIZES[0][1] });
    await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=US`);
    await fillCard(page, 'pending-axe@example.com');
    faults.arm('lost-answer');
    await page.locator('#pay').click();
    await page.getByRole('heading', { name: 'Confirming your payment' }).waitFor();
    // The page checks again by itself after 3 s: stopped here, so axe reads the page however long a busy machine takes.
    await page.evaluate(() => {
      const last = window.setTimeout(() => undefined, 0);
      for (let id = 0; id <= last; id++) window.clearTimeout(id);
    });
    assert.deepEqual(await seriousViolations(page), [], 'pending page');
    await screenshot(page, `${ARTIFACTS}checkout-ux-pending-desktop.png`, { fullPage: true });
    await page.close();
  });
});
