import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countryName, placeName } from '../../src/http/pages/panel/place-names.ts';

test('a place reads as a country and a region in words, not two codes', () => {
  assert.equal(placeName('US', 'CA'), 'United States, California');
  assert.equal(placeName('CA', 'QC'), 'Canada, Quebec');
  assert.equal(placeName('CA', 'ON'), 'Canada, Ontario');
  assert.equal(placeName('us', 'ny'), 'United States, New York', 'codes in any case');
  assert.equal(placeName('ES', 'TF'), 'Spain, Santa Cruz de Tenerife (Canary Islands)');
});

test('a country without a region is its name alone; a region nobody named is shown as given', () => {
  assert.equal(placeName('DE', null), 'Germany');
  assert.equal(placeName('GB', ''), 'United Kingdom');
  assert.equal(placeName('FR', 'IDF'), 'France, IDF');
});

test('a code ICU cannot name stays a code instead of failing the page', () => {
  assert.equal(countryName('XY'), 'XY');
  assert.equal(countryName('not a code'), 'not a code');
});
