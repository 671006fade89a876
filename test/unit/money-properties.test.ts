import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { ExchangeRates } from '../../src/domain/money/exchange-rates.ts';
import {
  convert,
  currencyExponent,
  divideRoundHalfUp,
  formatMinor,
  minorToNumber,
  multiplyByRate,
  toMinor,
  type Decimal,
} from '../../src/domain/money/money.ts';
import { convertFromUsd, quotePrice } from '../../src/domain/tax/pricing.ts';

/**
 * Properties of the money and tax arithmetic, checked against exact rational arithmetic done here
 * in BigInt, independently of the helpers under test: every quote, conversion and rounding is
 * exact to the minor unit and rounds halves away from zero.
 */

/** The exponents the properties rely on, written down here rather than read from the code under test. */
const EXPONENTS: Readonly<Record<string, number>> = { JPY: 0, KRW: 0, USD: 2, EUR: 2, GBP: 2, KWD: 3, BHD: 3, JOD: 3 };
const CURRENCIES = Object.keys(EXPONENTS);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

interface TaxRecord {
  rate: number;
  states?: Record<string, { rate: number }>;
}
const dataset = createRequire(import.meta.url)('sales-tax/res/sales_tax_rates.json') as Record<string, TaxRecord>;
const COUNTRIES = Object.keys(dataset).filter((c) => /^[A-Z]{2}$/.test(c));
const US_STATES = Object.keys(dataset.US?.states ?? {});
const CA_PROVINCES = Object.keys(dataset.CA?.states ?? {});

/** An exact fraction num / den with den > 0. */
interface Ratio {
  num: bigint;
  den: bigint;
}

/** A decimal literal ("0.0725", "176.5") as an exact fraction, without the code's parseDecimal. */
function ratioOf(text: string): Ratio {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`not a plain decimal: ${text}`);
  const fraction = match[3] ?? '';
  return { num: BigInt(match[2]! + fraction) * (match[1] ? -1n : 1n), den: 10n ** BigInt(fraction.length) };
}

const ratioOfDecimal = (d: Decimal): Ratio => ({ num: d.units, den: 10n ** BigInt(d.scale) });
const add = (a: Ratio, b: Ratio): Ratio => ({ num: a.num * b.den + b.num * a.den, den: a.den * b.den });
const sameRatio = (a: Ratio, b: Ratio) => a.num * b.den === b.num * a.den;

/** num / den rounded to the nearest integer, halves away from zero (truncating division, then the remainder decides). */
function roundHalfAwayFromZero(num: bigint, den: bigint): bigint {
  if (den < 0n) return roundHalfAwayFromZero(-num, -den);
  const quotient = num / den; // truncates towards zero
  const remainder = num % den; // has the sign of num
  const twice = remainder < 0n ? -2n * remainder : 2n * remainder;
  if (twice < den) return quotient;
  return num < 0n ? quotient - 1n : quotient + 1n;
}

/** |result - num/den| <= 1/2: the rounding neither loses nor creates more than half a minor unit. */
function withinHalfUnit(result: bigint, num: bigint, den: bigint): boolean {
  const error = result * den - num;
  return 2n * (error < 0n ? -error : error) <= (den < 0n ? -den : den);
}

/** The tax the dataset prescribes: the country's rate plus the US state's or Canadian province's. */
function expectedTaxRate(country: string, region: string | null): Ratio {
  const record = dataset[country];
  if (!record) return { num: 0n, den: 1n };
  let rate = ratioOf(String(record.rate));
  const state = region ? record.states?.[region] : undefined;
  if (state) rate = add(rate, ratioOf(String(state.rate)));
  return rate;
}

/** USD minor units to `currency` minor units, exactly: usd / 10^eUSD * (rate(currency) / rate(USD)) * 10^eCurrency. */
function exactFromUsd(usdMinor: number, currency: string, usdRate: Decimal, target: Decimal): Ratio {
  const usd = ratioOfDecimal(usdRate);
  const to = ratioOfDecimal(target);
  return {
    num: BigInt(usdMinor) * to.num * usd.den * 10n ** BigInt(EXPONENTS[currency]!),
    den: 100n * to.den * usd.num,
  };
}

// ---- generators ----

/** A decimal rate between lowMicros and highMicros millionths, written with 0 to 3 extra trailing zeros or none. */
const decimalRate = (lowMicros: number, highMicros: number): fc.Arbitrary<Decimal> =>
  fc
    .tuple(fc.integer({ min: lowMicros, max: highMicros }), fc.integer({ min: 0, max: 3 }), fc.boolean())
    .map(([micros, extra, strip]) => {
      let units = BigInt(micros) * 10n ** BigInt(extra);
      let scale = 6 + extra;
      while (strip && scale > 0 && units % 10n === 0n) {
        units /= 10n;
        scale -= 1;
      }
      return { units, scale };
    });

/**
 * An ECB-style table: USD near parity with EUR (0.5 .. 2 per EUR), any subset of the other
 * currencies between 0.0001 and 100,000 per EUR (the span of real reference rates).
 */
const ratesTable: fc.Arbitrary<ExchangeRates> = fc
  .tuple(
    decimalRate(500_000, 2_000_000),
    fc
      .subarray(CURRENCIES.filter((c) => c !== 'USD'))
      .chain((codes) =>
        fc.tuple(...codes.map((code) => decimalRate(100, 100_000_000_000).map((rate) => [code, rate] as const))),
      ),
  )
  .map(([usd, others]) => {
    const perEuro = new Map<string, Decimal>([['USD', usd], ...others]);
    perEuro.set('EUR', { units: 1n, scale: 0 }); // EUR per EUR is 1, whatever was drawn
    return { date: '2026-01-01', perEuro };
  });

const minorAmount = fc.integer({ min: 0, max: 1_000_000_000 });

/** A country of the tax dataset, with a state or province where the country has them (or none, or an unknown one). */
const locality: fc.Arbitrary<{ country: string; region: string | null }> = fc.oneof(
  fc.record({ country: fc.constantFrom(...COUNTRIES), region: fc.constant(null) }),
  fc.record({
    country: fc.constant('US'),
    region: fc.oneof(fc.constantFrom(...US_STATES), fc.constant('ZZ'), fc.constant(null)),
  }),
  fc.record({ country: fc.constant('CA'), region: fc.oneof(fc.constantFrom(...CA_PROVINCES), fc.constant(null)) }),
  fc.record({ country: fc.constantFrom(...COUNTRIES), region: fc.constantFrom(...US_STATES, ...CA_PROVINCES) }),
);

/** Local net prices the vendor set for some currencies besides USD. */
const localPrices = fc
  .subarray(CURRENCIES.filter((c) => c !== 'USD'))
  .chain((codes) => fc.tuple(...codes.map((code) => minorAmount.map((minor) => [code, minor] as const))));

const isInvalidInput = (err: unknown) => (err as { code?: string }).code === 'INVALID_INPUT';

describe('money properties: the test data', () => {
  test('the exponents and the tax dataset are what the properties assume', () => {
    for (const [currency, exponent] of Object.entries(EXPONENTS))
      assert.equal(currencyExponent(currency), exponent, currency);
    assert.ok(COUNTRIES.length > 50);
    assert.ok(US_STATES.length > 40 && CA_PROVINCES.length > 5);
    // Regions only ever add tax in the US and Canada; the properties sum country + region.
    for (const state of [...Object.values(dataset.US!.states!), ...Object.values(dataset.CA!.states!)])
      assert.ok(state.rate > 0);
  });
});

describe('money properties: quotePrice', () => {
  test('net + tax = total to the minor unit, tax is never negative and is net x rate rounded half up', () => {
    fc.assert(
      fc.property(
        minorAmount,
        localPrices,
        fc.constantFrom(...CURRENCIES),
        locality,
        fc.boolean(),
        ratesTable,
        (usd, locals, wanted, { country, region }, allowConversion, rates) => {
          const prices: Record<string, number> = { USD: usd, ...Object.fromEntries(locals) };
          const quote = quotePrice({ prices, currency: wanted.toLowerCase(), country, region, allowConversion, rates });

          // Which currency and which net amount, decided here from the rules rather than read back.
          let currency = 'USD';
          let net = BigInt(usd);
          if (prices[wanted] !== undefined) {
            currency = wanted;
            net = BigInt(prices[wanted]!);
          } else if (allowConversion && rates.perEuro.has(wanted)) {
            currency = wanted;
            const exact = exactFromUsd(usd, wanted, rates.perEuro.get('USD')!, rates.perEuro.get(wanted)!);
            net = roundHalfAwayFromZero(exact.num, exact.den);
          }
          const rate = expectedTaxRate(country, region);
          const tax = roundHalfAwayFromZero(net * rate.num, rate.den);

          assert.equal(quote.currency, currency);
          assert.equal(BigInt(quote.netMinor), net);
          assert.equal(BigInt(quote.taxMinor), tax);
          assert.ok(quote.taxMinor >= 0, 'tax is never negative');
          assert.ok(
            Number.isSafeInteger(quote.netMinor) &&
              Number.isSafeInteger(quote.taxMinor) &&
              Number.isSafeInteger(quote.totalMinor),
          );
          assert.equal(BigInt(quote.totalMinor), BigInt(quote.netMinor) + BigInt(quote.taxMinor));
          assert.ok(sameRatio(ratioOf(quote.taxRate), rate), `taxRate ${quote.taxRate} for ${country}/${region}`);
          assert.equal(quote.netUsdMinor, usd);
        },
      ),
      { numRuns: 5000 },
    );
  });

  test('any price a vendor can store quotes exactly, or is refused when an amount would pass 2^53, never rounded by a float', () => {
    fc.assert(
      fc.property(
        fc.maxSafeInteger().map((n) => Math.abs(n)),
        fc.constantFrom(...CURRENCIES),
        locality,
        ratesTable,
        (usd, wanted, { country, region }, rates) => {
          let net = BigInt(usd);
          if (wanted !== 'USD' && rates.perEuro.has(wanted)) {
            const exact = exactFromUsd(usd, wanted, rates.perEuro.get('USD')!, rates.perEuro.get(wanted)!);
            net = roundHalfAwayFromZero(exact.num, exact.den);
          }
          const rate = expectedTaxRate(country, region);
          const tax = roundHalfAwayFromZero(net * rate.num, rate.den);
          const quote = () =>
            quotePrice({ prices: { USD: usd }, currency: wanted, country, region, allowConversion: true, rates });
          if (net + tax > MAX_SAFE) {
            assert.throws(quote, (err: Error) => isInvalidInput(err) && /too large/.test(err.message));
            return;
          }
          const q = quote();
          assert.deepEqual([BigInt(q.netMinor), BigInt(q.taxMinor), BigInt(q.totalMinor)], [net, tax, net + tax]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('money properties: toMinor, formatMinor, minorToNumber', () => {
  const currency = fc.constantFrom(...CURRENCIES);

  test('formatMinor writes exactly the currency exponent of decimals and toMinor reads it back', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), currency, (minor, code) => {
        const exponent = EXPONENTS[code]!;
        const text = formatMinor(minor, code);
        assert.match(text, exponent === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${exponent}}$`));
        const exact = ratioOf(text);
        assert.equal(exact.num * 10n ** BigInt(exponent), BigInt(minor) * exact.den);
        assert.equal(toMinor(text, code), minor);
        // Trailing zeros beyond the exponent are the same amount.
        assert.equal(toMinor(text + (exponent === 0 ? '.000' : '000'), code), minor);
      }),
      { numRuns: 5000 },
    );
  });

  test('minorToNumber is the correctly rounded value and, below 10^15, round trips through toMinor', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), currency, (minor, code) => {
        const exponent = EXPONENTS[code]!;
        const value = minorToNumber(minor, code);
        // minor and 10^exponent are exact doubles, so IEEE division is the correctly rounded quotient.
        assert.equal(value, minor / 10 ** exponent);
        // Up to 15 significant digits a decimal survives a double; beyond that only the string twin is exact.
        if (Math.abs(minor) < 1e15) assert.equal(toMinor(value, code), minor);
      }),
      { numRuns: 5000 },
    );
  });

  test('toMinor of any double is exact or refused: it never rounds', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 1000),
        ),
        currency,
        (value, code) => {
          let minor;
          try {
            minor = toMinor(value, code);
          } catch (err) {
            assert.ok(isInvalidInput(err), String(err));
            return;
          }
          assert.ok(Number.isSafeInteger(minor));
          assert.equal(minorToNumber(minor, code), value === 0 ? 0 : value);
        },
      ),
      { numRuns: 5000 },
    );
  });

  test('toMinor refuses more decimals than the currency allows rather than rounding', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        currency,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 9 }),
        (minor, code, zeros, digit) => {
          const exponent = EXPONENTS[code]!;
          const text = formatMinor(minor, code) + (exponent === 0 ? '.' : '') + '0'.repeat(zeros) + String(digit);
          assert.throws(
            () => toMinor(text, code),
            (err: Error) => isInvalidInput(err) && /more decimals than/.test(err.message),
          );
          const asNumber = Number(text);
          if (String(asNumber) === text) assert.throws(() => toMinor(asNumber, code), isInvalidInput);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('money properties: conversion', () => {
  test('convertFromUsd is the exact rational amount rounded half up: no minor unit lost or created', () => {
    fc.assert(
      fc.property(minorAmount, ratesTable, (usd, rates) => {
        for (const [currency, target] of rates.perEuro) {
          if (!(currency in EXPONENTS)) continue;
          const result = BigInt(convertFromUsd(usd, currency, rates));
          const exact = exactFromUsd(usd, currency, rates.perEuro.get('USD')!, target);
          assert.equal(result, roundHalfAwayFromZero(exact.num, exact.den), `${usd} USD minor -> ${currency}`);
          assert.ok(withinHalfUnit(result, exact.num, exact.den));
          assert.equal(convertFromUsd(0, currency, rates), 0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test('convertFromUsd is monotonic: a bigger USD amount never converts to a smaller amount', () => {
    fc.assert(
      fc.property(minorAmount, minorAmount, ratesTable, (a, b, rates) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        for (const currency of rates.perEuro.keys()) {
          assert.ok(
            convertFromUsd(low, currency, rates) <= convertFromUsd(high, currency, rates),
            `${low} <= ${high} in ${currency}`,
          );
        }
      }),
      { numRuns: 3000 },
    );
  });

  const signedAmount = fc.integer({ min: -1_000_000_000, max: 1_000_000_000 });
  const pair = fc.tuple(fc.constantFrom(...CURRENCIES), fc.constantFrom(...CURRENCIES));
  const crossRate = decimalRate(1, 100_000_000_000); // 0.000001 .. 100,000 units of `to` per unit of `from`

  test('convert is exact, rounds halves away from zero, and is odd: convert(-x) = -convert(x)', () => {
    fc.assert(
      fc.property(signedAmount, pair, crossRate, (minor, [from, to], rate) => {
        const exact = ratioOfDecimal(rate);
        const num = BigInt(minor) * exact.num * 10n ** BigInt(EXPONENTS[to]!);
        const den = exact.den * 10n ** BigInt(EXPONENTS[from]!);
        const expected = roundHalfAwayFromZero(num, den);
        assert.equal(convert(0, from, to, rate), 0);
        if (expected > MAX_SAFE || expected < -MAX_SAFE) {
          // Past 2^53 a number cannot carry every minor unit: refused, not rounded.
          assert.throws(
            () => convert(minor, from, to, rate),
            (err: Error) => isInvalidInput(err) && /too large/.test(err.message),
          );
          return;
        }
        const result = BigInt(convert(minor, from, to, rate));
        assert.equal(result, expected);
        assert.ok(withinHalfUnit(result, num, den));
        assert.equal(convert(-minor, from, to, rate), -Number(result) || 0);
      }),
      { numRuns: 5000 },
    );
  });

  test('convert is monotonic over signed amounts', () => {
    fc.assert(
      fc.property(signedAmount, signedAmount, pair, crossRate, (a, b, [from, to], rate) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        let converted: [number, number];
        try {
          converted = [convert(low, from, to, rate), convert(high, from, to, rate)];
        } catch (err) {
          assert.ok(isInvalidInput(err), String(err)); // an amount past 2^53, covered above
          return;
        }
        assert.ok(converted[0] <= converted[1]);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('money properties: rounding', () => {
  const nonZero = (max: bigint) => fc.bigInt({ min: -max, max }).filter((n) => n !== 0n);

  test('divideRoundHalfUp rounds to nearest with halves away from zero, as it documents', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), nonZero(10n ** 18n), (units, divisor) => {
        const result = divideRoundHalfUp(units, divisor);
        assert.equal(result, roundHalfAwayFromZero(units, divisor));
        assert.ok(withinHalfUnit(result, units, divisor));
        assert.equal(divideRoundHalfUp(-units, divisor), -result);
        assert.equal(divideRoundHalfUp(units, -divisor), -result);
      }),
      { numRuns: 5000 },
    );
  });

  test('exact halves go away from zero: 2k+1 over 2 is k+1, and -(2k+1) over 2 is -(k+1)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.bigInt({ min: 1n, max: 10n ** 9n }), (k, scale) => {
        // (2k + 1) * scale / (2 * scale) is exactly k + 1/2.
        assert.equal(divideRoundHalfUp((2n * k + 1n) * scale, 2n * scale), k + 1n);
        assert.equal(divideRoundHalfUp(-(2n * k + 1n) * scale, 2n * scale), -(k + 1n));
      }),
      { numRuns: 3000 },
    );
  });

  test('multiplyByRate is minor x rate rounded half away from zero, within half a minor unit, or refused past 2^53', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.bigInt({ min: 0n, max: 10n ** 7n }),
        fc.integer({ min: 0, max: 8 }),
        (minor, units, scale) => {
          const rate: Decimal = { units, scale };
          const den = 10n ** BigInt(scale);
          const expected = roundHalfAwayFromZero(BigInt(minor) * units, den);
          if (expected > MAX_SAFE || expected < -MAX_SAFE) {
            assert.throws(
              () => multiplyByRate(minor, rate),
              (err: Error) => isInvalidInput(err) && /too large/.test(err.message),
            );
            return;
          }
          const result = multiplyByRate(minor, rate);
          assert.ok(Number.isSafeInteger(result));
          assert.equal(BigInt(result), expected);
          assert.ok(withinHalfUnit(BigInt(result), BigInt(minor) * units, den));
          if (minor >= 0) assert.ok(result >= 0, 'a non-negative amount never has negative tax');
        },
      ),
      { numRuns: 5000 },
    );
  });
});
