import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Transaction } from '../../src/domain/model.ts';
import { buyerWords } from '../../src/http/pages/checkout/checkout-buyer-words.ts';
import { CHECKOUT_COUNTRIES, countryName, countryOptions } from '../../src/http/pages/checkout/checkout-countries.ts';
import { receipt, type ReceiptView } from '../../src/http/pages/checkout/checkout-receipt.ts';
import { translator } from '../../src/i18n/index.ts';

/** The checkout's views in the buyer's language (docs/decisions.md §33), as pure functions: fast. */

const trial: Transaction = {
  id: 'TC-TR_01TEST',
  vendorId: 'TC-VE_01TEST',
  environment: 'production',
  productId: 'TC-PR_01TEST',
  customizedProductId: null,
  customerId: 'c1',
  paymentMethodId: 'pm1',
  email: 'ann@example.com',
  assignedEmail: null,
  productName: 'Atlas Cloud',
  type: 'SUBSCRIPTION',
  status: 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  chargeFrequency: 'MONTHLY',
  country: 'US',
  region: null,
  currency: 'USD',
  netMinor: 900,
  taxMinor: 0,
  netUsdMinor: 900,
  taxRate: '0',
  taxName: '',
  payload: null,
  whoCanceled: null,
  lastCharge: null,
  nextCharge: '2026-12-03T10:00:00.000Z',
  createdAt: '2026-11-19T10:00:00.000Z',
  changeFlag: null,
  changedAt: null,
  businessName: null,
  buyerVatId: null,
  postalCode: null,
  buyerAddress: null,
  reverseCharge: false,
  locale: null,
  buyerName: null,
  cancelReason: null,
  quantity: 1,
};

const view = (transaction: Transaction, more: Partial<ReceiptView> = {}): ReceiptView => ({
  vendorName: 'Kiosk',
  transaction,
  licence: null,
  invoicePath: null,
  method: { id: 'pm1', token: 't', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 },
  manageUrl: 'https://pay.example/manage/abc?locale=en',
  ...more,
});

describe('the receipt', () => {
  test("a trial: nothing paid today, then the checkout's own sentence with the first charge's day, no second date", () => {
    const text = receipt(translator('en'), view(trial), false).text;
    assert.match(text, /Your free trial has started\./);
    assert.match(text, /<span data-testid="paid-today">\$0\.00<\/span>/);
    assert.match(text, /<p data-testid="then">Then \$9\.00 every month from December 3, 2026\.<\/p>/);
    assert.doesNotMatch(text, /Next charge|Payment of/);
    assert.match(text, /<td>Card<\/td><td><span data-testid="payment-method">Visa ending in 4242<\/span>/);
  });

  test('a payment: what was received, no paid-today line, and the next charge by its day in words', () => {
    const paid = { ...trial, status: 'SUBSCRIPTION_STATUS_ACTIVE', lastCharge: trial.createdAt } as Transaction;
    const text = receipt(translator('de'), view(paid), false).text;
    assert.match(text, /Zahlung über <strong>9,00\s\$<\/strong> erhalten\./);
    assert.doesNotMatch(text, /paid-today|data-testid="then"/);
    assert.match(text, /<span data-testid="next-charge">3\. Dezember 2026<\/span>/);
    assert.match(text, /<td>Bezahlt mit<\/td>/);
  });

  test('the management link when there is one, nothing when there is none', () => {
    assert.match(
      receipt(translator('en'), view(trial), false).text,
      /href="https:\/\/pay\.example\/manage\/abc\?locale=en"/,
    );
    assert.doesNotMatch(receipt(translator('en'), view(trial, { manageUrl: null }), false).text, /manage/);
  });
});

describe('the country list', () => {
  test('one Curaçao: the withdrawn Netherlands Antilles (AN) is not offered, CW is', () => {
    assert.ok(!CHECKOUT_COUNTRIES.includes('AN'));
    assert.deepEqual(
      countryOptions(translator('en')).filter((c) => c.name === 'Curaçao'),
      [{ code: 'CW', name: 'Curaçao' }],
    );
  });

  test("names in the buyer's language, sorted as that language sorts (Swedish puts Ö after Z, German beside O)", () => {
    const sv = countryOptions(translator('sv')).map((c) => c.name);
    assert.ok(sv.indexOf('Österrike') > sv.indexOf('Zimbabwe'), 'Swedish: Ö after Z');
    const de = countryOptions(translator('de')).map((c) => c.name);
    assert.ok(de.indexOf('Österreich') < de.indexOf('Pakistan'), 'German: Ö with O');
    assert.equal(countryName(translator('ja'), 'DE'), 'ドイツ');
  });
});

describe("the domain's English sentences at the checkout", () => {
  test('a known one in the buyer’s language; an unknown one as it is, marked English; English unchanged', () => {
    const de = translator('de');
    assert.equal(buyerWords(de, 'The coupon "SPRING" has expired.'), 'Der Gutschein SPRING ist abgelaufen.');
    assert.equal(buyerWords(de, 'The card has insufficient funds.'), 'Die Karte ist nicht ausreichend gedeckt.');
    assert.equal(
      String((buyerWords(de, 'Something new.') as { text: string }).text),
      '<span lang="en">Something new.</span>',
    );
    assert.equal(buyerWords(translator('en'), 'Something new.'), 'Something new.');
    // The VAT check's own reason in English; a general one elsewhere.
    const reason = 'VAT ID: FR123 does not have the format of a VAT ID from FR.';
    assert.equal(buyerWords(translator('en'), reason), reason);
    assert.match(String(buyerWords(de, reason)), /USt-IdNr\./);
  });
});
