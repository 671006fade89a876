import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { formatDecimal } from '../../src/domain/money/money.ts';
import { taxRateFor } from '../../src/domain/tax/tax-rates.ts';
import { countryOfIp, regionOfPostalCode } from '../../src/geo/locate.ts';
import { US_ZIP_STATE_RANGES } from '../../src/geo/us-zip-states.ts';
import { zipStateRanges } from '../../support/generate-us-zip-states.ts';

const tax = (country: string, region?: string) => {
  const rate = taxRateFor(country, region);
  return [rate.name, formatDecimal(rate.rate)];
};

describe('tax by region and where a customer is', () => {
  test('regional taxes add to the national one, or replace it where the dataset lowers it', () => {
    assert.deepEqual(tax('US', 'CA'), ['Sales tax', '0.0825']);
    assert.deepEqual(tax('US'), ['', '0']);
    assert.deepEqual(tax('CA', 'ON'), ['HST', '0.13']);
    assert.deepEqual(tax('CA', 'QC'), ['GST + QST', '0.14975']);
    assert.deepEqual(tax('ES'), ['VAT', '0.21']);
    assert.deepEqual(tax('ES', 'GC'), ['IGIC', '0.07'], 'the Canary Islands charge IGIC, not VAT');
    assert.deepEqual(tax('ES', 'CE'), ['', '0'], 'Ceuta charges no VAT');
    assert.deepEqual(tax('HK'), ['', '0'], 'a country outside the dataset charges no tax');
  });

  test('postal codes name the region: US ZIP, Canadian postal code, Spanish territories', () => {
    assert.equal(regionOfPostalCode('US', '94103'), 'CA');
    assert.equal(regionOfPostalCode('US', '10001-1234'), 'NY');
    assert.equal(regionOfPostalCode('US', '1234'), undefined);
    assert.equal(regionOfPostalCode('CA', 'm5v 3l9'), 'ON');
    assert.equal(regionOfPostalCode('ES', '35001'), 'GC');
    assert.equal(regionOfPostalCode('ES', '28001'), undefined);
    assert.equal(regionOfPostalCode('DE', '10115'), undefined);
  });

  test('every US ZIP code the zipcodes package knows gets its state, from the generated ranges (regenerate if this fails)', () => {
    assert.deepEqual(US_ZIP_STATE_RANGES, zipStateRanges(), 'src/geo/us-zip-states.ts is what the generator writes');
    const require = createRequire(import.meta.url);
    const { codes } = require('zipcodes') as { codes: Record<string, { zip: string; state: string; country: string }> };
    let checked = 0;
    for (const { zip, state, country } of Object.values(codes)) {
      if (country !== 'US' || !/^\d{5}$/.test(zip)) continue;
      assert.equal(regionOfPostalCode('US', zip), state, zip);
      checked++;
    }
    assert.ok(checked > 40_000, `${checked} ZIP codes`);
    // Between two states' ranges there is no state; inside a state's range an unlisted code is that state's.
    assert.equal(regionOfPostalCode('US', '00000'), undefined);
    assert.equal(regionOfPostalCode('US', '99999'), undefined);
    assert.equal(regionOfPostalCode('US', '94100'), 'CA');
  });

  test('the country of an address comes from the bundled GeoIP data; private addresses have none', () => {
    assert.equal(countryOfIp('8.8.8.8'), 'US');
    assert.equal(countryOfIp('::ffff:81.2.69.142'), 'GB');
    assert.equal(countryOfIp('127.0.0.1'), undefined);
    assert.equal(countryOfIp('10.1.2.3'), undefined);
  });
});
