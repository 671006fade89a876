import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dueToday } from '../../src/domain/checkout/due-today.ts';

/** What a buyer is asked for today (issue 33: one rule for the checkout page and the purchase). */
type Product = { type: 'ONETIME' | 'SUBSCRIPTION' | 'VAULTED'; trialDays: number };
const offer = (product: Product, switching = false) =>
  ({
    product,
    customized: switching ? { transactionIdToMigrate: 'transaction_old' } : null,
  }) as unknown as Parameters<typeof dueToday>[0];

describe('due today', () => {
  test('a one-time purchase is charged in full; a free one asks for no card', () => {
    assert.deepEqual(dueToday(offer({ type: 'ONETIME', trialDays: 0 }), 4900), {
      charged: true,
      chargeMinor: 4900,
      trial: false,
      paidLater: false,
      card: 'payment',
    });
    assert.deepEqual(dueToday(offer({ type: 'ONETIME', trialDays: 0 }), 0), {
      charged: false,
      chargeMinor: 0,
      trial: false,
      paidLater: false,
      card: 'none',
    });
  });

  test('a subscription without a trial is charged now; with a one-day trial nothing is, and its card is kept', () => {
    assert.equal(dueToday(offer({ type: 'SUBSCRIPTION', trialDays: 0 }), 900).chargeMinor, 900);
    assert.equal(dueToday(offer({ type: 'SUBSCRIPTION', trialDays: 0 }), 900).card, 'payment');
    assert.deepEqual(dueToday(offer({ type: 'SUBSCRIPTION', trialDays: 1 }), 900), {
      charged: false,
      chargeMinor: 0,
      trial: true,
      paidLater: true,
      card: 'setup',
    });
  });

  test('a switch charges nothing now and starts no trial, even on a product with one', () => {
    assert.deepEqual(dueToday(offer({ type: 'SUBSCRIPTION', trialDays: 14 }, true), 900), {
      charged: false,
      chargeMinor: 0,
      trial: false,
      paidLater: true,
      card: 'setup',
    });
  });

  test('a free subscription or stored method still asks for the card, to keep it', () => {
    assert.equal(dueToday(offer({ type: 'SUBSCRIPTION', trialDays: 0 }), 0).card, 'setup');
    assert.equal(dueToday(offer({ type: 'VAULTED', trialDays: 0 }), 0).card, 'setup');
    assert.equal(dueToday(offer({ type: 'SUBSCRIPTION', trialDays: 0 }), 0).paidLater, false);
  });
});
