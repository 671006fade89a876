import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { paymentMethodLabel, translator } from '../../src/i18n/index.ts';
import { ARTIFACTS, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * More ways to pay in the browser (docs/decisions.md §37): the checkout's Payment Element, for a
 * subscription in euros, offers the account's reusable methods (Card, Link, SEPA Direct Debit, PayPal;
 * not EPS, which cannot be charged again) in the page's language; a German buyer pays by SEPA Direct
 * Debit and the purchase keeps that method. On a phone in Arabic the tabs fit and the page is axe-clean.
 */
describe('ways to pay in the Payment Element, in Chromium', () => {
  let w: StripeWorld;
  let browser: Browser;
  let product = '';

  before(async () => {
    w = await startStripeWorld('sqlite');
    product = (
      await w.vendor.product(
        {
          type: 'SUBSCRIPTION',
          chargeFrequency: 'MONTHLY',
          name: 'Acme Cloud',
          prices: [
            { currency: 'USD', value: 8 },
            { currency: 'EUR', value: 8 },
          ],
        } as never,
        'production',
      )
    ).id;
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await w?.close();
  });

  const element = (page: Page) => page.frameLocator('iframe[title="Secure payment input frame"]');
  async function open(page: Page, locale: string) {
    await page.goto(`${w.app.url}/payment/product/${product}?country=DE&locale=${locale}`);
    await element(page).getByRole('tab', { name: 'Card' }).waitFor();
  }
  const tabs = async (page: Page) => element(page).getByRole('tab').allTextContents();
  const frameConfig = async (page: Page) =>
    JSON.parse(
      decodeURIComponent(new URL((await page.locator('#payment-element iframe').getAttribute('src'))!).hash.slice(1)),
    ) as {
      locale: string;
      methods: string[];
    };

  test('a German buyer of a subscription sees only reusable methods, in German, and pays by SEPA Direct Debit', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'de-DE' });
    const page = await ctx.newPage();
    await open(page, 'de');
    assert.deepEqual(
      await tabs(page),
      ['Card', 'Link', 'SEPA Direct Debit', 'PayPal'],
      'no EPS: it cannot be charged again',
    );
    assert.equal((await frameConfig(page)).locale, 'de', "the element is asked for the page's language");
    await page.fill('#email', 'erika@example.com');
    const frame = element(page);
    await frame.getByRole('tab', { name: 'SEPA Direct Debit' }).click();
    await frame.getByLabel('Full name').fill('Erika Mustermann');
    await frame.getByLabel('Email').fill('erika@example.com');
    await frame.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
    await screenshot(page, `${ARTIFACTS}stripe-methods-sepa-de.png`, { fullPage: true });
    await page.click('#pay');
    await page.waitForURL(/\/confirm\//);
    await page.locator('[data-testid="transaction-id"]').waitFor({ timeout: 15_000 });
    const id = (await page.locator('[data-testid="transaction-id"]').textContent())!;
    const transaction = (await w.app.services.store.transactions.find(w.vendor.scope('production'), id))!;
    assert.equal(transaction.status, 'SUBSCRIPTION_STATUS_ACTIVE');
    const method = (await w.app.services.store.paymentMethods.find(transaction.paymentMethodId!))!;
    assert.equal(paymentMethodLabel(translator('de'), method), 'SEPA-Lastschrift mit Endziffern 3000');
    await ctx.close();
  });

  test('on a phone in Arabic the tabs fit the element, nothing scrolls sideways, and the page is axe-clean', async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    await open(page, 'ar');
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    assert.equal((await frameConfig(page)).locale, 'ar');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, 'no horizontal scrolling at 390px');
    const frame = (await page.locator('#payment-element iframe').boundingBox())!;
    for (const name of await tabs(page)) {
      const tab = (await element(page).getByRole('tab', { name }).boundingBox())!;
      assert.ok(tab.x >= frame.x && tab.x + tab.width <= frame.x + frame.width + 1, `${name} is inside the element`);
    }
    await screenshot(page, `${ARTIFACTS}stripe-methods-phone-ar.png`, { fullPage: true });
    assert.deepEqual(
      await seriousViolations(page, { exclude: ['#payment-element iframe'] }),
      [],
      'checkout, ar, phone',
    );
    await ctx.close();
  });
});
