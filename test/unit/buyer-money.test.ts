import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countryLocale, formatDecimalForBuyer, localeFromAcceptLanguage } from '../../src/domain/money/buyer-money.ts';
import { formatForBuyer } from '../../src/domain/money/money.ts';

/** Intl separates some amounts from their symbol by a (narrow) no-break space; the tests read it as a plain one. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('formatForBuyer: amounts in the buyer locale, exact from the minor units', () => {
  test('several locales and currencies, with the currency decimals (JPY 0, KWD 3)', () => {
    const cases: [number, string, string, string][] = [
      [4900, 'USD', 'en-US', '$49.00'],
      [4900, 'USD', 'en', '$49.00'],
      [5355, 'EUR', 'de-DE', '53,55 €'],
      [5355, 'EUR', 'en', '€53.55'],
      [5355, 'EUR', 'fr-FR', '53,55 €'],
      [123456789, 'EUR', 'de-DE', '1.234.567,89 €'],
      [1999, 'GBP', 'en-GB', '£19.99'],
      [1500, 'JPY', 'ja-JP', '￥1,500'],
      [1500, 'JPY', 'en-US', '¥1,500'],
      [1250, 'KWD', 'en', 'KWD 1.250'],
      [5, 'KWD', 'en', 'KWD 0.005'],
      [0, 'USD', 'en-US', '$0.00'],
      [7, 'USD', 'en-US', '$0.07'],
    ];
    for (const [minor, currency, locale, expected] of cases)
      assert.equal(plain(formatForBuyer(minor, currency, locale)), expected, `${minor} ${currency} ${locale}`);
  });

  test('negative amounts (credit notes)', () => {
    assert.equal(plain(formatForBuyer(-4900, 'USD', 'en-US')), '-$49.00');
    assert.equal(plain(formatForBuyer(-5355, 'EUR', 'de-DE')), '-53,55 €');
    assert.equal(plain(formatForBuyer(-1500, 'JPY', 'en')), '-¥1,500');
    assert.equal(plain(formatForBuyer(-1250, 'KWD', 'en')), '-KWD 1.250');
  });

  test('exact past what a double holds: no float rounding', () => {
    assert.equal(formatForBuyer(Number.MAX_SAFE_INTEGER, 'USD', 'en-US'), '$90,071,992,547,409.91');
    assert.equal(formatDecimalForBuyer('12345678901234567.89', 'USD', 'en-US'), '$12,345,678,901,234,567.89');
    assert.equal(formatForBuyer(1005, 'USD', 'en-US'), '$10.05');
  });

  test('Latin digits in every locale, and an unknown locale falls back', () => {
    assert.match(formatForBuyer(5355, 'EUR', 'ar-EG'), /53[.,]55/);
    assert.equal(formatForBuyer(5355, 'EUR', 'not a locale'), '€53.55');
  });

  test('the buyer locale: the first Accept-Language tag, validated, else en; a country gives its likely language', () => {
    assert.equal(localeFromAcceptLanguage('de-CH,de;q=0.9,en;q=0.8'), 'de-CH');
    assert.equal(localeFromAcceptLanguage('fr;q=0.9'), 'fr');
    assert.equal(localeFromAcceptLanguage('en-us'), 'en-US');
    for (const bad of ['*', '', undefined, 'x_y!', '12-34'])
      assert.equal(localeFromAcceptLanguage(bad), 'en', String(bad));
    // The vendor's pages fall back to en-US.
    for (const bad of ['*', undefined]) assert.equal(localeFromAcceptLanguage(bad, 'en-US'), 'en-US', String(bad));
    assert.equal(localeFromAcceptLanguage('de-DE', 'en-US'), 'de-DE');
    assert.equal(countryLocale('DE'), 'de-DE');
    assert.equal(countryLocale('US'), 'en-US');
    assert.equal(countryLocale('FR'), 'fr-FR');
    assert.equal(countryLocale('JP'), 'ja-JP');
    for (const bad of [null, '', 'DEU', '1A']) assert.equal(countryLocale(bad), 'en', String(bad));
  });
});
