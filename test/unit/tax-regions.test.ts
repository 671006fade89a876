import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDecimal } from '../../src/domain/money.ts';
import { taxRateFor } from '../../src/domain/tax-rates.ts';
import { countryOfIp, regionOfPostalCode } from '../../src/geo/locate.ts';

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

  test('the country of an address comes from the bundled GeoIP data; private addresses have none', () => {
    assert.equal(countryOfIp('8.8.8.8'), 'US');
    assert.equal(countryOfIp('::ffff:81.2.69.142'), 'GB');
    assert.equal(countryOfIp('127.0.0.1'), undefined);
    assert.equal(countryOfIp('10.1.2.3'), undefined);
  });
});
