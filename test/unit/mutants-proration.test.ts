import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prorate } from '../../src/domain/billing/proration.ts';

const now = new Date('2030-04-16T00:00:00.000Z');
// A 30-day period of 30.00 USD, half used: 15.00 USD left.
const old = { netUsdMinor: 3000, lastCharge: '2030-04-01T00:00:00.000Z', nextCharge: '2030-05-01T00:00:00.000Z' };

describe('proration of an upgrade', () => {
  test('a switch to a free subscription starts it at once and still reports the value left', () => {
    const free = prorate(old, { netUsdMinor: 0, chargeFrequency: 'MONTHLY' }, now);
    assert.equal(free.valueLeftUsdMinor, 1500);
    assert.equal(free.delayMs, 0);
    assert.equal(free.firstCharge.toISOString(), now.toISOString());
  });

  test('the value left buys time on the new subscription at its own price', () => {
    // 15.00 USD left at 60.00 USD a 30-day month buys a quarter of that month.
    const next = prorate(old, { netUsdMinor: 6000, chargeFrequency: 'DAILY' }, now);
    assert.equal(next.valueLeftUsdMinor, 1500);
    assert.equal(next.delayMs, Math.floor((1500 * 86_400_000) / 6000));
  });
});
