import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkVatIdFormat, EU_COUNTRIES, formatVatIdChecker } from '../../src/domain/tax/vat-ids.ts';

/** The format-only VAT ID checker: prefix of the buyer's country, then that country's pattern. */
describe('VAT ID formats', () => {
  const valid: [string, string, string][] = [
    ['DE', 'DE123456789', 'DE123456789'],
    ['DE', 'de 123.456-789', 'DE123456789'],
    ['DE', '123456789', 'DE123456789'],
    ['AT', 'ATU12345678', 'ATU12345678'],
    ['BE', 'BE0123456789', 'BE0123456789'],
    ['FR', 'FR12345678901', 'FR12345678901'],
    ['FR', 'FRXA123456789', 'FRXA123456789'],
    ['GR', 'EL123456789', 'EL123456789'],
    ['GR', '123456789', 'EL123456789'],
    ['NL', 'NL123456789B01', 'NL123456789B01'],
    ['ES', 'ESX1234567Z', 'ESX1234567Z'],
    ['IE', 'IE1234567WA', 'IE1234567WA'],
    ['SE', 'SE123456789001', 'SE123456789001'],
    ['IT', 'IT12345678901', 'IT12345678901'],
    ['PL', 'PL1234567890', 'PL1234567890'],
  ];
  for (const [country, input, normalized] of valid) {
    test(`${country} ${input} is valid as ${normalized}`, async () => {
      assert.deepEqual(await formatVatIdChecker.check(input, country), { valid: true, normalized, reason: null });
    });
  }

  test('wrong formats, wrong prefixes, and buyers outside the EU are not valid, with a reason', () => {
    const cases: [string, string, RegExp][] = [
      ['DE', 'DE12345678', /format of a VAT ID from DE/],
      ['DE', 'FR12345678901', /starts with DE, not FR/],
      ['GR', 'GR123456789', /format|starts with EL/],
      ['AT', 'AT12345678', /format of a VAT ID from AT/],
      ['NL', 'NL123456789', /format/],
      ['ES', 'ES123456789', /format/],
      ['SE', 'SE123456789012', /format/],
      ['DE', '', /Enter the VAT ID/],
      ['CH', 'CHE123456789', /EU only/],
      ['GB', 'GB123456789', /EU only/],
    ];
    for (const [country, input, reason] of cases) {
      const result = checkVatIdFormat(input, country);
      assert.equal(result.valid, false, `${country} ${input}`);
      assert.match(result.reason ?? '', reason, `${country} ${input}`);
    }
  });

  test('every EU member state has a format', () => {
    assert.equal(EU_COUNTRIES.size, 27);
    for (const country of EU_COUNTRIES)
      assert.equal(checkVatIdFormat('X', country).reason?.includes('EU only'), false, country);
  });
});
