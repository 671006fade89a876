import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePriceText } from '../../src/domain/catalog/price-text.ts';

const invalid = (text: string, pattern: RegExp) =>
  assert.throws(
    () => parsePriceText(text),
    (err: { code?: string; message?: string }) => err.code === 'INVALID_INPUT' && pattern.test(err.message ?? ''),
  );

describe('price text', () => {
  test("the CLI's CURRENCY:AMOUNT and CURRENCY=AMOUNT read as one price, the amount kept as written", () => {
    assert.deepEqual(parsePriceText('USD:19.99'), [{ currency: 'USD', value: '19.99' }]);
    assert.deepEqual(parsePriceText('EUR=18'), [{ currency: 'EUR', value: '18' }]);
    assert.deepEqual(parsePriceText('JPY:0500'), [{ currency: 'JPY', value: '0500' }]);
  });

  test('the panel\'s "USD 20.00, EUR 18.50" reads as a list, with a space, ":" or "=" between currency and amount', () => {
    assert.deepEqual(parsePriceText('USD 20.00, EUR 18.50'), [
      { currency: 'USD', value: '20.00' },
      { currency: 'EUR', value: '18.50' },
    ]);
    assert.deepEqual(parsePriceText(' USD : 20 ; EUR=18.5\nGBP   16 \n'), [
      { currency: 'USD', value: '20' },
      { currency: 'EUR', value: '18.5' },
      { currency: 'GBP', value: '16' },
    ]);
  });

  test('currencies are read in any case and passed on as written; the catalog normalizes them', () => {
    assert.deepEqual(parsePriceText('usd:10, Eur 9'), [
      { currency: 'usd', value: '10' },
      { currency: 'Eur', value: '9' },
    ]);
  });

  test("empty text is an empty list: whether USD is required is the catalog's rule", () => {
    assert.deepEqual(parsePriceText(''), []);
    assert.deepEqual(parsePriceText(undefined), []);
    assert.deepEqual(parsePriceText(' , ;\n'), []);
  });

  test('text that is not a price is INVALID_INPUT saying how to write prices and naming the bad part', () => {
    invalid('USD19.99', /^Write prices as "USD 20\.00, EUR 18\.50"; "USD19\.99" is not one\.$/);
    invalid('USD:abc', /"USD:abc" is not one/);
    invalid('USD:-5', /"USD:-5" is not one/);
    invalid('USD:1.', /"USD:1\." is not one/);
    invalid('DOLLAR 5', /"DOLLAR 5" is not one/);
    invalid('USD 20, 18.50', /"18\.50" is not one/);
    invalid('USD:1,000', /"000" is not one/);
    invalid('20 USD', /"20 USD" is not one/);
  });
});
