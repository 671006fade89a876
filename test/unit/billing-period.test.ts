import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { periodStart } from '../../src/domain/billing/billing-period.ts';
import type { ChargeFrequency } from '../../src/domain/model.ts';

const at = (iso: string) => new Date(iso);
const starts = (anchor: string, frequency: ChargeFrequency, count: number) =>
  Array.from({ length: count }, (_, n) => periodStart(at(anchor), frequency, n).toISOString());

describe('billing periods', () => {
  test('MONTHLY from 31 January: last day of February, then back to the 31st', () => {
    assert.deepEqual(starts('2030-01-31T15:30:45.123Z', 'MONTHLY', 5), [
      '2030-01-31T15:30:45.123Z',
      '2030-02-28T15:30:45.123Z',
      '2030-03-31T15:30:45.123Z',
      '2030-04-30T15:30:45.123Z',
      '2030-05-31T15:30:45.123Z',
    ]);
  });

  test('MONTHLY from 31 January in a leap year renews on 29 February', () => {
    assert.equal(periodStart(at('2028-01-31T00:00:00.000Z'), 'MONTHLY', 1).toISOString(), '2028-02-29T00:00:00.000Z');
    assert.equal(periodStart(at('2028-01-31T00:00:00.000Z'), 'MONTHLY', 2).toISOString(), '2028-03-31T00:00:00.000Z');
  });

  test('MONTHLY across the year end and for many periods stays on the anchor day', () => {
    assert.equal(periodStart(at('2030-11-30T08:00:00.000Z'), 'MONTHLY', 3).toISOString(), '2031-02-28T08:00:00.000Z');
    assert.equal(periodStart(at('2030-12-15T08:00:00.000Z'), 'MONTHLY', 1).toISOString(), '2031-01-15T08:00:00.000Z');
    assert.equal(periodStart(at('2030-01-31T08:00:00.000Z'), 'MONTHLY', 24).toISOString(), '2032-01-31T08:00:00.000Z');
    assert.equal(periodStart(at('2030-01-31T08:00:00.000Z'), 'MONTHLY', 25).toISOString(), '2032-02-29T08:00:00.000Z');
  });

  test('YEARLY from 29 February: 28 February in common years, 29 February in leap years', () => {
    assert.deepEqual(starts('2028-02-29T12:00:00.000Z', 'YEARLY', 5), [
      '2028-02-29T12:00:00.000Z',
      '2029-02-28T12:00:00.000Z',
      '2030-02-28T12:00:00.000Z',
      '2031-02-28T12:00:00.000Z',
      '2032-02-29T12:00:00.000Z',
    ]);
  });

  test('century years: 2100 is not a leap year, 2000 is', () => {
    assert.equal(periodStart(at('2096-02-29T00:00:00.000Z'), 'YEARLY', 4).toISOString(), '2100-02-28T00:00:00.000Z');
    assert.equal(periodStart(at('1996-02-29T00:00:00.000Z'), 'YEARLY', 4).toISOString(), '2000-02-29T00:00:00.000Z');
  });

  test('HALF_YEARLY from 31 August: end of February, then 31 August', () => {
    assert.deepEqual(starts('2030-08-31T06:00:00.000Z', 'HALF_YEARLY', 4), [
      '2030-08-31T06:00:00.000Z',
      '2031-02-28T06:00:00.000Z',
      '2031-08-31T06:00:00.000Z',
      '2032-02-29T06:00:00.000Z',
    ]);
  });

  test('DAILY and WEEKLY add whole days, across month ends and leap days', () => {
    assert.equal(periodStart(at('2028-02-28T23:59:59.999Z'), 'DAILY', 1).toISOString(), '2028-02-29T23:59:59.999Z');
    assert.equal(periodStart(at('2028-02-28T23:59:59.999Z'), 'DAILY', 2).toISOString(), '2028-03-01T23:59:59.999Z');
    assert.equal(periodStart(at('2030-12-31T10:00:00.000Z'), 'DAILY', 1).toISOString(), '2031-01-01T10:00:00.000Z');
    assert.equal(periodStart(at('2030-01-28T10:00:00.000Z'), 'WEEKLY', 1).toISOString(), '2030-02-04T10:00:00.000Z');
    assert.equal(periodStart(at('2030-01-28T10:00:00.000Z'), 'WEEKLY', 52).toISOString(), '2031-01-27T10:00:00.000Z');
  });

  test('period 0 is the anchor itself, and the anchor is not modified', () => {
    const anchor = at('2030-01-31T15:30:45.123Z');
    for (const frequency of ['DAILY', 'WEEKLY', 'MONTHLY', 'HALF_YEARLY', 'YEARLY'] as const) {
      assert.equal(periodStart(anchor, frequency, 0).toISOString(), anchor.toISOString());
      periodStart(anchor, frequency, 7);
      assert.equal(anchor.toISOString(), '2030-01-31T15:30:45.123Z');
    }
  });

  test('UNKNOWN is not a recurring frequency', () => {
    assert.throws(() => periodStart(at('2030-01-01T00:00:00.000Z'), 'UNKNOWN', 1), /not a recurring frequency/);
  });
});
