import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { latestUnreversedPayment, paymentEntry, reversalEntry } from '../../src/domain/payments/ledger.ts';
import { NO_PLATFORM_FEE } from '../../src/domain/money/index.ts';
import { loadExchangeRates } from '../../src/files/exchange-rates-file.ts';

const fee = { platformFee: NO_PLATFORM_FEE, rates: loadExchangeRates() };

const at = new Date('2030-05-01T10:00:00.000Z');
const transaction = { id: 'TC-TR_1', vendorId: 'TC-VE_1', environment: 'production' as const, country: 'DE' };

const payment = (type: 'ONETIME_PAYMENT' | 'SUBSCRIPTION_PAYMENT' | 'VAULTED_PAYMENT', netMinor: number, seconds = 0) =>
  paymentEntry({
    type,
    transaction,
    quote: { currency: 'EUR', netMinor, taxMinor: Math.round(netMinor * 0.19), taxRate: '0.19' },
    paid: { reference: 'ch_1', feeMinor: 30 },
    provider: 'SANDBOX',
    fee,
    at: new Date(at.getTime() + seconds * 1000),
  });

describe('ledger entries', () => {
  test("a payment's total is net plus tax, and the vendor's income is the net less the gateway's fee", () => {
    const entry = payment('ONETIME_PAYMENT', 1000);
    assert.equal(entry.amountTotalMinor, 1190);
    assert.equal(entry.taxMinor, 190);
    assert.equal(entry.incomeMinor, 970);
    assert.equal(entry.transactionFeeMinor, 30);
  });

  test('a reversal negates every amount of the payment it points at', () => {
    const paid = payment('ONETIME_PAYMENT', 1000);
    const refund = reversalEntry(paid, {
      type: 'ONETIME_PAYMENT_REFUND',
      vendorId: 'TC-VE_1',
      environment: 'production',
      externalId: 're_1',
      at,
    });
    assert.equal(refund.reversesEntryId, paid.id);
    assert.deepEqual(
      [refund.amountTotalMinor, refund.taxMinor, refund.netMinor, refund.incomeMinor, refund.transactionFeeMinor],
      [-1190, -190, -1000, -970, -30],
    );
  });

  test('the payment left to refund is the latest one not yet reversed, a vaulted charge included', () => {
    const first = payment('VAULTED_PAYMENT', 1000, 0);
    const second = payment('VAULTED_PAYMENT', 2000, 1);
    assert.equal(latestUnreversedPayment([first, second])?.id, second.id);
    const refund = reversalEntry(second, {
      type: 'ONETIME_PAYMENT_REFUND',
      vendorId: 'TC-VE_1',
      environment: 'production',
      externalId: null,
      at,
    });
    assert.equal(latestUnreversedPayment([first, second, refund])?.id, first.id);
  });
});
