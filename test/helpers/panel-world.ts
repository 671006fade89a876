import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Scope } from '../../src/domain/model.ts';
import { formBrowser, type FormBrowser } from './form-browser.ts';
import { TEST_CARD, type TestApp } from './test-app.ts';

/** A vendor signed up through the panel's form (PANEL_SIGNUP=open), its form browser, and its sandbox scope. */
export async function signedUp(
  t: TestApp,
  email: string,
  company = 'Detail Co',
): Promise<{ b: FormBrowser; scope: Scope }> {
  const b = formBrowser(t.url);
  await b.get('/panel/signup');
  const res = await b.post('/panel/signup', { company, email, password: 'correct horse battery' });
  assert.equal(res.status, 303);
  const vendorId = (await t.services.store.panel.findUserByEmail(email))!.vendorId;
  return { b, scope: { vendorId, environment: 'sandbox' } };
}

/** Signs a new vendor up in a real browser, as a newcomer does; its sandbox scope. */
export async function signedUpInBrowser(page: Page, url: string, email = 'founder@acme.test'): Promise<Scope> {
  await page.goto(`${url}/panel/signup`);
  await page.fill('#company', 'Acme Software');
  await page.fill('#email', email);
  await page.fill('#password', 'a long enough passphrase');
  await page.click('button[type="submit"]');
  return { vendorId: (await page.locator('[data-testid="vendor-id"]').textContent())!, environment: 'sandbox' };
}

/** A business buyer in California (name, company, street, ZIP) of a monthly plan that issues licences. */
export async function businessPurchase(t: TestApp, scope: Scope): Promise<{ id: string; licence: string }> {
  const product = await t.services.catalog.createProduct(scope, {
    name: 'Team Plan',
    type: 'SUBSCRIPTION',
    chargeFrequency: 'MONTHLY',
    issuesLicences: true,
    prices: [{ currency: 'USD', value: 49 }],
  });
  const result = await t.services.purchases.purchase(scope, {
    productId: product.id,
    email: 'Ann@Example.com',
    firstName: 'Ann',
    lastName: 'Lee',
    country: 'US',
    region: 'CA',
    zip: '94103',
    businessName: 'Lee Design LLC',
    buyerAddress: '500 Market St\nSan Francisco',
    card: TEST_CARD,
  });
  if (result.status !== 'PAID') throw new Error(`the purchase was ${result.status}`);
  return { id: result.transaction.id, licence: result.licence! };
}
