import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTaxPeriod } from '../../src/domain/books/index.ts';
import { parseExchangeRateDays, ratesOfDay, toEuroMinor } from '../../src/domain/money/index.ts';

/** The periods tax returns cover, and the ECB rate each converts at (docs/decisions.md §23). */
describe('tax periods and the ECB rate of their last day', () => {
  test('a quarter, a month, a year, in UTC; anything else refused', () => {
    assert.deepEqual(parseTaxPeriod('2026-Q1'), {
      label: '2026-Q1',
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-04-01T00:00:00.000Z',
      lastDay: '2026-03-31',
    });
    assert.equal(parseTaxPeriod('2026-Q4').lastDay, '2026-12-31');
    assert.equal(parseTaxPeriod('2026-Q4').to, '2027-01-01T00:00:00.000Z');
    assert.equal(parseTaxPeriod('2024-02').lastDay, '2024-02-29', 'a leap year');
    assert.deepEqual(
      [parseTaxPeriod('2026').from, parseTaxPeriod('2026').lastDay],
      ['2026-01-01T00:00:00.000Z', '2026-12-31'],
    );
    for (const text of ['2026-Q0', '2026-Q5', '2026-00', '2026-13', '26-Q1', 'Q1-2026', ''])
      assert.throws(() => parseTaxPeriod(text), { code: 'INVALID_INPUT' }, text);
  });

  const days = parseExchangeRateDays(`<Cube>
    <Cube time="2026-10-02"><Cube currency="USD" rate="1.2"/><Cube currency="JPY" rate="160"/></Cube>
    <Cube time="2026-09-25"><Cube currency="USD" rate="1.1"/><Cube currency="JPY" rate="150"/></Cube>
  </Cube>`);

  test('every day of a history file; the day asked, or the last published before it within a week', () => {
    assert.deepEqual(
      days.map((d) => d.date),
      ['2026-10-02', '2026-09-25'],
    );
    assert.equal(ratesOfDay(days, '2026-10-02').date, '2026-10-02');
    assert.equal(ratesOfDay(days, '2026-10-04').date, '2026-10-02', 'a Sunday: Friday’s');
    assert.equal(ratesOfDay(days, '2026-10-01').date, '2026-09-25', 'never a later day');
    assert.equal(ratesOfDay(days, '2026-10-09').date, '2026-10-02', 'seven days on');
    assert.throws(() => ratesOfDay(days, '2026-10-10'), /No ECB reference rates for 2026-10-10/);
    assert.throws(() => ratesOfDay(days, '2026-09-24'), { code: 'INVALID_INPUT' });
  });

  test('into euros: divided by the rate, minding each currency’s exponent, rounded half-up once', () => {
    const [day] = days;
    assert.equal(toEuroMinor(12_000, 'USD', day!), 10_000, '120.00 USD at 1.2 is 100.00 EUR, not 144.00');
    assert.equal(toEuroMinor(16_000, 'JPY', day!), 10_000, '16,000 JPY (no minor unit) at 160 is 100.00 EUR');
    assert.equal(toEuroMinor(1, 'USD', day!), 1, '0.0083 EUR rounds to a cent');
    assert.equal(toEuroMinor(-12_000, 'USD', day!), -10_000, 'a refund');
    assert.equal(toEuroMinor(999, 'EUR', day!), 999);
    assert.throws(() => toEuroMinor(1, 'GBP', day!), /no rate for GBP/);
  });
});
