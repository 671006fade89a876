import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatUsSalesTaxCsv, parseUsSalesTaxCsv, taxRateFor } from '../../src/domain/tax/tax-rates.ts';
import { quotePrice } from '../../src/domain/tax/pricing.ts';
import { formatDecimal } from '../../src/domain/money/money.ts';

const HEADER =
  'State,ZipCode,TaxRegionName,StateRate,EstimatedCombinedRate,EstimatedCountyRate,EstimatedCityRate,EstimatedSpecialRate,RiskLevel';
const NY = 'NY,10001,NEW YORK CITY,0.04,0.08875,0,0.045,0.00375,1';
const rates = {
  date: '2030-01-01',
  perEuro: new Map([
    ['USD', { units: 1n, scale: 0 }],
    ['EUR', { units: 1n, scale: 0 }],
  ]),
} as never;

describe('ZIP-level US sales tax table', () => {
  test('10001 is taxed at its combined 8.875%; a ZIP not in the table at the state rate, estimated', () => {
    const table = parseUsSalesTaxCsv(`\uFEFF${HEADER}\r\n${NY}\r\n`);
    const nyc = taxRateFor('US', 'NY', { zip: '10001', usSalesTax: table });
    assert.deepEqual([formatDecimal(nyc.rate), nyc.name, nyc.estimated ?? false], ['0.08875', 'Sales tax', false]);
    assert.equal(formatDecimal(taxRateFor('US', 'NY', { zip: '10001-1234', usSalesTax: table }).rate), '0.08875');
    const albany = taxRateFor('US', 'NY', { zip: '12207', usSalesTax: table });
    assert.deepEqual([formatDecimal(albany.rate), albany.estimated], ['0.04', true]);
    assert.equal(taxRateFor('US', 'NY', { zip: '10001' }).estimated, true, 'no table: estimated');
    assert.equal(taxRateFor('DE').estimated, undefined);
    const quote = quotePrice({
      prices: { USD: 10000 },
      currency: 'USD',
      country: 'US',
      region: 'NY',
      zip: '10001',
      usSalesTax: table,
      allowConversion: true,
      rates,
    });
    assert.deepEqual(
      [quote.taxMinor, quote.totalMinor, quote.taxRate, quote.taxEstimated],
      [888, 10888, '0.08875', undefined],
    );
  });

  test('columns are found by name in any order, quoted names keep their commas, and the table writes back the same', () => {
    const text = [
      'ZipCode,State,RiskLevel,TaxRegionName,EstimatedCombinedRate,StateRate,EstimatedCountyRate,EstimatedCityRate,EstimatedSpecialRate',
      '12901,NY,1,"PLATTSBURGH, CITY",0.0800,0.04,0.04,0,0',
    ].join('\n');
    const table = parseUsSalesTaxCsv(text);
    assert.equal(table.rows.get('12901')!.regionName, 'PLATTSBURGH, CITY');
    const again = parseUsSalesTaxCsv(formatUsSalesTaxCsv(table));
    assert.deepEqual(again, table);
  });

  test('every bad row is refused, naming its line', () => {
    const bad: [string, RegExp][] = [
      ['NY,1001,X,0.04,0.04,0,0,0,1', /line 3: ZipCode "1001" is not a five-digit ZIP code/],
      ['XX,10002,X,0.04,0.04,0,0,0,1', /line 3: "XX" is not a US state code/],
      ['NY,10002,X,4,8.875,0,4.5,0.375,1', /line 3: StateRate 4 is above 0.2/],
      ['NY,10002,X,0.04,0.09,0,0.045,0.00375,1', /line 3: EstimatedCombinedRate 0.09 is not StateRate/],
      ['NY,10002,X,0.04,-0.01,0,0,0,1', /line 3: EstimatedCombinedRate "-0.01" is not a decimal rate/],
      ['NY,10002,X,0.04,,0,0,0,1', /line 3: EstimatedCombinedRate "" is not a decimal rate/],
      ['NY,10001,X,0.04,0.04,0,0,0,1', /line 3: ZIP code 10001 is already on line 2/],
      ['NY,10002,"X,0.04,0.04,0,0,0,1', /line 3: not a CSV line/],
    ];
    for (const [row, message] of bad) assert.throws(() => parseUsSalesTaxCsv(`${HEADER}\n${NY}\n${row}\n`), message);
    assert.throws(() => parseUsSalesTaxCsv('State,ZipCode\nNY,10001\n'), /line 1: the header lacks TaxRegionName/);
    assert.throws(() => parseUsSalesTaxCsv(`${HEADER}\n`), /no ZIP code rows/);
    // Within 0.00001 of the sum is accepted (the published files round).
    assert.equal(parseUsSalesTaxCsv(`${HEADER}\nNY,10002,X,0.04,0.088755,0,0.045,0.00375,1\n`).rows.size, 1);
  });
});
