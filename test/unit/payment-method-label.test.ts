import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LOCALES, paymentMethodExpiry, paymentMethodLabel, translator } from '../../src/i18n/index.ts';

/** How a payment method is put into words (docs/decisions.md §37): one function, every surface, every language. */
describe('paymentMethodLabel', () => {
  const en = translator('en');
  const visa = { brand: 'visa', last4: '4242', expMonth: 3, expYear: 2031 };

  test('a card, and a card through a wallet', () => {
    assert.equal(paymentMethodLabel(en, visa), 'Visa ending in 4242');
    assert.equal(
      paymentMethodLabel(en, { ...visa, type: 'card', wallet: 'google_pay' }),
      'Visa ending in 4242 (Google Pay)',
    );
    assert.equal(
      paymentMethodLabel(translator('ja'), { ...visa, wallet: 'apple_pay' }),
      'Apple Pay経由のVisa（末尾 4242）',
    );
    assert.equal(
      paymentMethodLabel(translator('he'), { ...visa, wallet: 'apple_pay' }),
      'Visa המסתיים ב-4242 דרך Apple Pay',
    );
  });

  test('bank debits by their last digits; wallets and other methods by their own names', () => {
    const sepa = { brand: '', last4: '3000', type: 'sepa_debit', expMonth: 0, expYear: 0 };
    assert.equal(paymentMethodLabel(en, sepa), 'SEPA Direct Debit ending in 3000');
    assert.equal(paymentMethodLabel(translator('de'), sepa), 'SEPA-Lastschrift mit Endziffern 3000');
    assert.equal(
      paymentMethodLabel(en, { brand: '', last4: '6789', type: 'us_bank_account' }),
      'Bank account ending in 6789',
    );
    assert.equal(
      paymentMethodLabel(translator('pl'), { brand: '', last4: '6789', type: 'bacs_debit' }),
      'Konto bankowe z końcówką 6789',
    );
    assert.equal(paymentMethodLabel(en, { brand: '', last4: '', type: 'paypal' }), 'PayPal');
    assert.equal(paymentMethodLabel(translator('ko'), { brand: '', last4: '', type: 'link' }), 'Link');
    assert.equal(paymentMethodLabel(en, { brand: '', last4: '', type: 'ideal' }), 'iDEAL');
    assert.equal(
      paymentMethodLabel(en, { brand: '', last4: '', type: 'some_new_pay' }),
      'Some New Pay',
      'a type not known yet still reads as words',
    );
    assert.equal(
      paymentMethodLabel(en, { brand: '', last4: '', type: 'sepa_debit' }),
      'Sepa Debit',
      'no digits: no "ending in"',
    );
  });

  test('every language names each kind of method, with its digits', () => {
    for (const locale of LOCALES) {
      const tr = translator(locale);
      for (const method of [
        { ...visa, wallet: 'apple_pay' },
        { brand: '', last4: '3000', type: 'sepa_debit' },
        { brand: '', last4: '6789', type: 'us_bank_account' },
      ]) {
        const label = paymentMethodLabel(tr, method);
        assert.ok(label.includes(method.last4), `${locale}: ${label}`);
        if ('wallet' in method) assert.ok(label.includes('Apple Pay') && label.includes('Visa'), `${locale}: ${label}`);
      }
    }
  });

  test('an expiry only for a card that has one', () => {
    assert.equal(paymentMethodExpiry(en, visa), 'expires 03/2031');
    assert.equal(
      paymentMethodExpiry(en, { brand: '', last4: '3000', type: 'sepa_debit', expMonth: 0, expYear: 0 }),
      undefined,
    );
    assert.equal(paymentMethodExpiry(en, { brand: 'visa', last4: '4242' }), undefined);
  });
});
