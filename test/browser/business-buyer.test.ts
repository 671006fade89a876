import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, screenshot } from '../../support/chromium.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * A business buyer from Germany buys from a French seller on the hosted checkout, in Chromium:
 * with the company name and a valid German VAT ID the price turns to 0% with the reverse-charge
 * note, the sandbox card pays, and the invoice PDF names the company, the VAT ID and the legal
 * note. Screenshots at desktop and phone sizes go to test-artifacts/business-buyer-*.png.
 */
const SIZES = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const;

describe('a business buyer from another EU country pays with reverse charge (Chromium)', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Atelier Logiciel');
    // The seller is in France, from the vendor's own seller details (no SELLER_COUNTRY fallback).
    await t.services.catalog.updateVendorSettings(v.vendor.id, {
      sellerName: 'Atelier Logiciel SAS',
      address: '12 rue de la Paix, 75002 Paris',
      country: 'FR',
      taxId: 'FR12345678901',
    });
    productId = (
      await v.product({
        type: 'ONETIME',
        name: 'Atelier Pro',
        prices: [
          { currency: 'USD', value: 120 },
          { currency: 'EUR', value: 100 },
        ],
      })
    ).id;
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const newPage = async (options: Parameters<Browser['newContext']>[0]) =>
    (await browser.newContext(options)).newPage();

  /** Opens the checkout for a German buyer and fills the business section; the price follows. */
  const openAsBusiness = async (page: Page, vatId: string) => {
    await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=DE`);
    await page.locator('[data-testid="total"]', { hasText: '€119.00' }).waitFor();
    assert.match((await page.locator('#price').textContent())!, /VAT \(19%\)/);
    await page.locator('details.business summary').click();
    await page.locator('#businessName').fill('Müller Maschinenbau GmbH');
    await page.locator('#buyerAddress').fill('Industriestraße 7\n80331 München');
    await page.locator('#vatId').fill(vatId);
    await page.locator('#vatId').blur();
  };

  for (const [size, viewport] of SIZES) {
    test(`with a valid German VAT ID the price turns to 0% reverse charge; the sandbox card pays; the invoice says so (${size})`, async () => {
      const page = await newPage({ locale: 'en-US', viewport });
      const statuses: number[] = [];
      page.on('response', (r) => statuses.push(r.status()));
      await openAsBusiness(page, 'DE123456789');
      await page.locator('[data-testid="total"]', { hasText: '€100.00' }).waitFor();
      await page.locator('[data-testid="reverse-charge"]').waitFor();
      assert.match((await page.locator('[data-testid="reverse-charge"]').textContent())!, /reverse charge/i);
      assert.equal(await page.locator('#vatId').getAttribute('aria-invalid'), null, 'a valid ID is not marked');
      assert.equal(await page.locator('#pay').textContent(), 'Pay €100.00');
      assert.equal(await page.locator('input[name="expectedTotal"]').inputValue(), '10000');
      await screenshot(page, `${ARTIFACTS}business-buyer-checkout-${size}.png`, { fullPage: true });

      const email = `buyer-${size}@mueller.example`;
      await page.locator('#email').fill(email);
      await page.locator('#cardNumber').pressSequentially('4242424242424242');
      await page.locator('#cardExpiry').fill('12/34');
      await page.locator('#cardCvc').fill('123');
      await page.locator('#pay').click();
      await page.locator('#receipt').waitFor();
      const receipt = (await page.locator('main, body').first().textContent())!;
      assert.match(receipt, /€100\.00/);
      assert.match(receipt, /Müller Maschinenbau GmbH/);
      assert.match(receipt, /DE123456789/);
      assert.match(receipt, /No VAT charged: reverse charge/);
      assert.ok(!statuses.some((s) => s >= 400), `no error answers: ${statuses.join(',')}`);
      await screenshot(page, `${ARTIFACTS}business-buyer-receipt-${size}.png`, { fullPage: true });

      // The receipt's invoice link, fetched as the browser resolves it.
      const href = await page.locator('[data-testid="invoice"]').evaluate((a) => (a as HTMLAnchorElement).href);
      const res = await page.request.get(href);
      assert.equal(res.status(), 200);
      assert.match(res.headers()['content-type'] ?? '', /application\/pdf/);
      const text = await pdfText(Buffer.from(await res.body()));
      assert.match(text, /DE123456789/, "the buyer's VAT ID");
      assert.match(text, /Müller Maschinenbau GmbH/, 'the company');
      assert.match(text, /Industriestraße 7\s*80331 München/, "the company's address");
      assert.match(text, /Reverse charge: VAT to be accounted for by the recipient/, 'the legal note');
      assert.match(text, /FR12345678901/, "the seller's VAT ID");

      const [listed] = (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as { id: string }[];
      const stored = (await t.services.store.transactions.find(v.scope(), listed!.id))!;
      assert.deepEqual(
        [
          stored.currency,
          stored.country,
          stored.taxMinor,
          stored.reverseCharge,
          stored.businessName,
          stored.buyerVatId,
        ],
        ['EUR', 'DE', 0, true, 'Müller Maschinenbau GmbH', 'DE123456789'],
      );
      await page.context().close();
    });
  }

  test('a VAT ID of the wrong format is marked next to the field and the German VAT stays', async () => {
    const page = await newPage({ locale: 'en-US', viewport: SIZES[0][1] });
    await openAsBusiness(page, 'DE12345');
    await page.locator('#vatId[aria-invalid="true"]').waitFor();
    const describedBy = (await page.locator('#vatId').getAttribute('aria-describedby'))!;
    assert.match((await page.locator(`#${describedBy}`).textContent())!, /VAT ID/);
    assert.equal(await page.locator('[data-testid="total"]').textContent(), '€119.00');
    assert.equal(await page.locator('[data-testid="reverse-charge"]').count(), 0);
    await page.context().close();
  });
});
