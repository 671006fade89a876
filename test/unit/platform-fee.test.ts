import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkedPlatformFee,
  formatPlatformFee,
  parseExchangeRates,
  parsePlatformFee,
  platformFeeMinor,
} from '../../src/domain/money/index.ts';

/** The platform's fee (docs/decisions.md §21): how the operator writes it, and what it takes of one payment. */
const rates = parseExchangeRates('# 2030-01-31\ncurrency,rate\nUSD,1.25\nJPY,150\nGBP,0.8', {});

describe('the platform fee as the operator writes it', () => {
  test('a percentage, a fixed amount with its currency, both in either order, or 0', () => {
    assert.deepEqual(parsePlatformFee('5%+0.50USD'), {
      percent: { units: 5n, scale: 0 },
      fixed: { currency: 'USD', minor: 50 },
    });
    assert.deepEqual(parsePlatformFee(' 0.50 usd + 2.5 % '), {
      percent: { units: 25n, scale: 1 },
      fixed: { currency: 'USD', minor: 50 },
    });
    assert.deepEqual(parsePlatformFee('0.30EUR').fixed, { currency: 'EUR', minor: 30 });
    assert.equal(parsePlatformFee('0.30EUR').percent.units, 0n);
    assert.deepEqual(parsePlatformFee('0'), { percent: { units: 0n, scale: 0 }, fixed: null });
    assert.equal(parsePlatformFee('100%').percent.units, 100n);
    assert.equal(formatPlatformFee(parsePlatformFee(' 0.5 usd+5%')), '5%+0.50USD');
    assert.equal(formatPlatformFee(parsePlatformFee('2.50%')), '2.5%');
    assert.equal(formatPlatformFee(parsePlatformFee('0')), '0');
    assert.equal(formatPlatformFee(parsePlatformFee('0%+0.00USD')), '0');
  });

  test('anything else is refused, saying what a fee looks like', () => {
    for (const text of [
      '',
      '5',
      '5%%',
      'five%',
      '5%+5%',
      '1USD+2USD',
      '100.5%',
      '101%',
      '-5%',
      '0.505USD',
      '5%+0.50XYZ',
    ])
      assert.throws(() => parsePlatformFee(text), { code: 'INVALID_INPUT' }, text);
    assert.throws(() => parsePlatformFee('5'), /5%\+0\.50USD/);
  });

  test('a fixed part must be in a currency of the rate table, so it converts into every currency the table does', () => {
    assert.equal(checkedPlatformFee('1%+0.30GBP', rates).fixed?.currency, 'GBP');
    assert.throws(() => checkedPlatformFee('1%+0.30CHF', rates), /CHF, which the exchange-rate table does not list/);
  });
});

describe('the platform fee on one payment', () => {
  const fee = (text: string, currency: string, netMinor: number, processorFeeMinor = 0) =>
    platformFeeMinor(parsePlatformFee(text), { currency, netMinor, processorFeeMinor }, rates);

  test('the percentage of the net plus the fixed part, in the payment currency', () => {
    assert.equal(fee('5%+0.50USD', 'USD', 1000), 100);
    assert.equal(fee('5%', 'USD', 999), 50, '49.95 rounds half up');
    assert.equal(fee('5%', 'USD', 990), 50, '49.5 rounds half up');
    assert.equal(fee('5%', 'USD', 989), 49, '49.45 rounds down');
    assert.equal(fee('0', 'USD', 1000), 0);
  });

  test('the fixed part is converted at the table: 0.50 USD at 1.25 USD a euro is 0.40 EUR, and 60 JPY at 150 JPY a euro', () => {
    assert.equal(fee('0.50USD', 'EUR', 10_000), 40);
    assert.equal(fee('0.50USD', 'JPY', 10_000), 60);
    assert.equal(fee('0.40EUR', 'USD', 10_000), 50);
    assert.equal(fee('0.50USD', 'GBP', 10_000), 32);
  });

  test('summed exactly and rounded once: parts that would each round down make a cent together', () => {
    // 4% of 10 cents is 0.4; 0.01 EUR at 1.25 USD a euro is 1.25 cents. Together 1.65 rounds to 2;
    // rounded apart they would make 0 + 1.
    assert.equal(fee('4%', 'USD', 10), 0);
    assert.equal(fee('0.01EUR', 'USD', 1000), 1);
    assert.equal(fee('4%+0.01EUR', 'USD', 10), 2);
  });

  test('it never takes more than the vendor keeps after the processor fee, and nothing of a payment that keeps nothing', () => {
    assert.equal(fee('5%+0.50USD', 'USD', 100, 80), 20);
    assert.equal(fee('5%+0.50USD', 'USD', 100, 100), 0);
    assert.equal(fee('5%+0.50USD', 'USD', 0), 0);
    assert.equal(fee('100%', 'USD', 1000, 30), 970);
    assert.equal(fee('5%+0.50USD', 'USD', 10_000, 320), 550, 'the processor fee does not lower the fee itself');
  });

  test('a payment in a currency the table cannot convert pays the percentage alone', () => {
    assert.equal(fee('5%+0.50USD', 'CHF', 1000), 50);
    assert.equal(fee('5%+0.50CHF', 'CHF', 1000), 100, 'the same currency needs no rate');
  });
});
