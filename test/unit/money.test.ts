import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExchangeRates } from '../../src/domain/money/exchange-rates.ts';
import {
  convert,
  currencyExponent,
  divideRoundHalfUp,
  formatMinor,
  minorToNumber,
  multiplyByRate,
  normalizeCurrency,
  parseDecimal,
  toMinor,
} from '../../src/domain/money/money.ts';
import { convertFromUsd, quotePrice } from '../../src/domain/tax/pricing.ts';

const invalid = (fn: () => unknown, pattern?: RegExp) =>
  assert.throws(
    fn,
    (err: { code?: string; message?: string }) =>
      err.code === 'INVALID_INPUT' && (!pattern || pattern.test(err.message ?? '')),
  );

describe('money: minor units', () => {
  test('each currency has its own exponent: JPY 0, USD 2, KWD 3', () => {
    assert.equal(currencyExponent('JPY'), 0);
    assert.equal(currencyExponent('USD'), 2);
    assert.equal(currencyExponent('KWD'), 3);
    assert.equal(normalizeCurrency(' eur '), 'EUR');
    invalid(() => normalizeCurrency('XYZ1'));
    invalid(() => normalizeCurrency('ABC'));
  });

  test('toMinor reads numbers and decimal strings exactly', () => {
    assert.equal(toMinor(1500, 'JPY'), 1500);
    assert.equal(toMinor('1500', 'JPY'), 1500);
    assert.equal(toMinor(19.99, 'USD'), 1999);
    assert.equal(toMinor('19.99', 'USD'), 1999);
    assert.equal(toMinor(0.1, 'USD'), 10);
    assert.equal(toMinor(1.005, 'KWD'), 1005);
    assert.equal(toMinor('1.250', 'KWD'), 1250);
    assert.equal(toMinor(0, 'USD'), 0);
    assert.equal(toMinor(-2.5, 'USD'), -250);
    // Trailing zeros beyond the exponent are the same amount, not extra precision.
    assert.equal(toMinor('20.000', 'USD'), 2000);
    assert.equal(toMinor('100.0', 'JPY'), 100);
  });

  test('toMinor refuses more decimals than the currency has instead of rounding', () => {
    invalid(() => toMinor(19.999, 'USD'), /more decimals than USD allows \(2\)/);
    invalid(() => toMinor('0.5', 'JPY'), /JPY/);
    invalid(() => toMinor(1.0005, 'KWD'), /KWD/);
    invalid(() => toMinor(0.1 + 0.2, 'USD')); // 0.30000000000000004
  });

  test('exponent-notation numbers are read as their plain decimal value', () => {
    invalid(() => toMinor(1e-7, 'USD'), /more decimals/);
    invalid(() => toMinor(1.5e-7, 'KWD'), /more decimals/);
    assert.equal(toMinor(1e21 / 1e10, 'JPY'), 1e11);
    assert.equal(toMinor(1.5e3, 'USD'), 150000);
    assert.deepEqual(parseDecimal(1e-7), { units: 1n, scale: 7 });
    assert.deepEqual(parseDecimal(-1.5e-7), { units: -15n, scale: 8 });
    assert.deepEqual(parseDecimal(1e21), { units: 10n ** 21n, scale: 0 });
    invalid(() => toMinor(1e21, 'USD'), /too large/);
  });

  test('toMinor refuses what is not a decimal number', () => {
    for (const value of ['abc', '1,5', '', '1e5', '0x10', ' ', '1.2.3']) invalid(() => toMinor(value, 'USD'));
    invalid(() => toMinor(Number.NaN, 'USD'));
    invalid(() => toMinor(Number.POSITIVE_INFINITY, 'USD'));
  });

  test("formatMinor writes exactly the currency's decimals, minorToNumber the same value", () => {
    assert.equal(formatMinor(1500, 'JPY'), '1500');
    assert.equal(formatMinor(2000, 'USD'), '20.00');
    assert.equal(formatMinor(5, 'USD'), '0.05');
    assert.equal(formatMinor(0, 'USD'), '0.00');
    assert.equal(formatMinor(-5, 'USD'), '-0.05');
    assert.equal(formatMinor(-2202, 'EUR'), '-22.02');
    assert.equal(formatMinor(1250, 'KWD'), '1.250');
    assert.equal(formatMinor(5, 'KWD'), '0.005');
    assert.equal(formatMinor(0, 'JPY'), '0');
    assert.equal(minorToNumber(1999, 'USD'), 19.99);
    assert.equal(minorToNumber(1250, 'KWD'), 1.25);
    assert.equal(minorToNumber(-0, 'USD'), 0);
    for (const [minor, currency] of [
      [1999, 'USD'],
      [1, 'KWD'],
      [123456789, 'JPY'],
    ] as const) {
      assert.equal(toMinor(formatMinor(minor, currency), currency), minor);
    }
  });

  test('multiplyByRate rounds half up (away from zero) to the minor unit', () => {
    assert.equal(multiplyByRate(1850, parseDecimal('0.19')), 352); // 351.5
    assert.equal(multiplyByRate(1000, parseDecimal('0.0825')), 83); // 82.5
    assert.equal(multiplyByRate(1003, parseDecimal('0.0825')), 83); // 82.7475
    assert.equal(multiplyByRate(1001, parseDecimal('0.19')), 190); // 190.19
    assert.equal(multiplyByRate(-1850, parseDecimal('0.19')), -352);
    assert.equal(multiplyByRate(0, parseDecimal('0.19')), 0);
    assert.equal(multiplyByRate(1234, parseDecimal('0')), 0);
    assert.equal(divideRoundHalfUp(5n, 2n), 3n);
    assert.equal(divideRoundHalfUp(-5n, 2n), -3n);
    assert.equal(divideRoundHalfUp(7n, -2n), -4n);
    assert.equal(divideRoundHalfUp(4n, 3n), 1n);
  });

  test('convert minds both exponents', () => {
    assert.equal(convert(100, 'USD', 'JPY', parseDecimal('150.5')), 151); // 1.00 USD -> 150.5 JPY
    assert.equal(convert(1000, 'JPY', 'USD', parseDecimal('0.0066')), 660); // 1000 JPY -> 6.60 USD
    assert.equal(convert(100, 'USD', 'KWD', parseDecimal('0.3075')), 308); // 0.3075 KWD -> 0.308
  });
});

describe('pricing: convertFromUsd', () => {
  const rates = parseExchangeRates(['USD,1.16', 'JPY,176.50', 'KWD,0.3560', 'EUR,1'].join('\n'));

  test('USD stays as it is', () => {
    assert.equal(convertFromUsd(2000, 'USD', rates), 2000);
  });

  test('converts through EUR with one half-up rounding at the end', () => {
    assert.equal(convertFromUsd(2000, 'EUR', rates), 1724); // 20 / 1.16 = 17.2413
    assert.equal(convertFromUsd(2000, 'JPY', rates), 3043); // 20 * 176.5 / 1.16 = 3043.10
    assert.equal(convertFromUsd(2000, 'KWD', rates), 6138); // 20 * 0.356 / 1.16 = 6.13793
    assert.equal(convertFromUsd(58, 'EUR', rates), 50); // 0.58 / 1.16 = 0.5 exactly
    assert.equal(convertFromUsd(29, 'EUR', rates), 25); // 0.25 exactly
    assert.equal(convertFromUsd(1, 'EUR', rates), 1); // 0.862 cent rounds up to 1
  });

  test('a currency without a rate is refused', () => {
    invalid(() => convertFromUsd(2000, 'CHF', rates), /CHF/);
  });

  test('quotePrice converts only missing prices and taxes the net amount', () => {
    const quote = quotePrice({ prices: { USD: 2000 }, currency: 'JPY', country: 'JP', allowConversion: true, rates });
    assert.deepEqual(
      {
        currency: quote.currency,
        net: quote.netMinor,
        tax: quote.taxMinor,
        total: quote.totalMinor,
        usd: quote.netUsdMinor,
      },
      { currency: 'JPY', net: 3043, tax: 304, total: 3347, usd: 2000 },
    );
    const listed = quotePrice({
      prices: { USD: 2000, EUR: 1850 },
      currency: 'eur',
      country: 'DE',
      allowConversion: true,
      rates,
    });
    assert.equal(listed.netMinor, 1850);
    assert.equal(listed.taxMinor, 352);
    assert.equal(listed.taxRate, '0.19');
    const noRate = quotePrice({ prices: { USD: 2000 }, currency: 'CHF', country: 'CH', allowConversion: true, rates });
    assert.equal(noRate.currency, 'USD');
    const noConversion = quotePrice({
      prices: { USD: 2000 },
      currency: 'EUR',
      country: 'DE',
      allowConversion: false,
      rates,
    });
    assert.equal(noConversion.currency, 'USD');
  });
});
