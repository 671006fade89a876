import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  acceptedTags,
  brandName,
  paymentMethodLabel,
  resolveLocale,
  supportedLocale,
  translator,
} from '../../src/i18n/index.ts';

describe('choosing the buyer language', () => {
  it('takes the first explicit choice it supports, then Accept-Language by q, then English', () => {
    assert.equal(resolveLocale(['ja'], 'de'), 'ja');
    assert.equal(resolveLocale([undefined, 'xx', 'fr'], 'de'), 'fr');
    assert.equal(resolveLocale([], 'xx, de-AT;q=0.8, fr;q=0.9'), 'fr');
    assert.equal(resolveLocale([], 'de;q=0, fr;q=0.1'), 'fr');
    assert.equal(resolveLocale([], 'zh-TW, ko;q=0.5'), 'ko');
    assert.equal(resolveLocale([null], undefined), 'en');
    assert.equal(resolveLocale([], 'en-XA'), 'en', 'a header never picks the pseudo-locale');
    assert.equal(resolveLocale(['en-xa'], 'de'), 'en-XA');
  });

  it('matches regions and legacy tags to the catalog a reader of them reads', () => {
    assert.equal(supportedLocale('pt'), 'pt-BR');
    assert.equal(supportedLocale('pt-pt'), 'pt-PT');
    assert.equal(supportedLocale('pt_AO'), 'pt-PT');
    assert.equal(supportedLocale('zh-Hans-SG'), 'zh-CN');
    assert.equal(supportedLocale('zh-Hant'), undefined);
    assert.equal(supportedLocale('no'), 'nb');
    assert.equal(supportedLocale('iw-IL'), 'he');
    assert.equal(supportedLocale('de-CH'), 'de');
    assert.equal(supportedLocale('x'.repeat(40)), undefined);
  });

  it('orders Accept-Language by weight, keeping the order of equals', () => {
    assert.deepEqual(acceptedTags('a;q=0.5, b, c;q=0.5, *'), ['b', 'a', 'c']);
  });
});

describe('translator', () => {
  it('formats plurals, dates and amounts in the language, right to left where it reads so', () => {
    const de = translator('de');
    assert.equal(de.t('common.trialFree', { days: 1 }), '1 Tag kostenlos.');
    assert.equal(de.t('common.trialFree', { days: 14 }), '14 Tage kostenlos.');
    assert.equal(de.date('2026-12-03T10:00:00.000Z'), '3. Dezember 2026');
    assert.equal(de.money(900, 'EUR'), '9,00\u00a0€');
    assert.equal(de.dir, 'ltr');
    const ar = translator('ar');
    assert.equal(ar.dir, 'rtl');
    assert.match(ar.t('common.every', { frequency: 'MONTHLY' }), /شهري/);
  });

  it('escapes values in HTML and lets tags wrap text', () => {
    const en = translator('en');
    assert.equal(en.html('common.cardEnding', { brand: '<b>', last4: '4242' }).text, '&#60;b&#62; ending in 4242');
  });

  it('throws on a key English lacks, so a typo fails the page test that renders it', () => {
    assert.throws(() => translator('fr').t('common.nope'), /No English message "common.nope"/);
  });

  it('makes the pseudo-locale longer and accented, keeping the placeholders', () => {
    const values = { price: '$9.00', every: 'X', date: 'D' };
    const text = translator('en-XA').t('common.trialThen', values);
    const english = translator('en').t('common.trialThen', values);
    assert.match(text, /^Ţĥéñ \$9\.00 X ƒŕöɱ D\. ẋ+$/);
    // "Then from ." has 9 letters: 40% more is 4.
    assert.equal(text.length, english.length + 5);
  });

  it('names card networks as their owners write them', () => {
    assert.equal(brandName('visa'), 'Visa');
    assert.equal(brandName('amex'), 'American Express');
    assert.equal(brandName('some_new_brand'), 'Some New Brand');
    assert.equal(paymentMethodLabel(translator('en'), { brand: 'visa', last4: '4242' }), 'Visa ending in 4242');
    assert.equal(
      paymentMethodLabel(translator('fr'), { brand: 'mastercard', last4: '4444' }),
      'Mastercard se terminant par 4444',
    );
  });
});
