import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type Stripe from 'stripe';
import { matchWithLedger, type MatchInput } from '../../src/domain/books/reconciliation-match.ts';
import { reconciliationPeriod } from '../../src/domain/books/reconciliation.ts';
import type { ProcessorItem } from '../../src/domain/payments/index.ts';
import type { ReferencedEntry } from '../../src/domain/ports.ts';
import { itemOf } from '../../src/gateways/stripe-books.ts';

/** The rules of reconciliation with the processor (docs/decisions.md §25), without a store or a processor. */

const period = reconciliationPeriod('2031-04-01', '2031-04-30');

const item = (over: Partial<ProcessorItem> = {}): ProcessorItem => ({
  id: `txn_${over.reference ?? 'pi_1'}`,
  kind: 'payment',
  reference: 'pi_1',
  label: 'charge',
  createdAt: '2031-04-10T10:00:00.000Z',
  amountMinor: 4000,
  currency: 'USD',
  feeMinor: 146,
  balance: { currency: 'USD', amountMinor: 4000, feeMinor: 146, netMinor: 3854 },
  ...over,
});

const entry = (over: Partial<ReferencedEntry> = {}): ReferencedEntry => ({
  entryId: `entry_${over.reference ?? 'pi_1'}`,
  transactionId: 'TC-TR_1',
  vendorId: 'TC-VE_1',
  type: 'ONETIME_PAYMENT',
  createdAt: '2031-04-10T10:00:00.100Z',
  reference: 'pi_1',
  currency: 'USD',
  amountMinor: 4000,
  feeMinor: 146,
  ...over,
});

const match = (input: Partial<MatchInput>) =>
  matchWithLedger({ period, items: [], ledger: [], elsewhere: [], payouts: [], ...input });

describe('reconciliation: the period', () => {
  test("the days given, both included, are the instants from the first's midnight to the midnight after the last (UTC)", () => {
    assert.deepEqual(period, {
      from: '2031-04-01',
      to: '2031-04-30',
      startsAt: '2031-04-01T00:00:00.000Z',
      endsAt: '2031-05-01T00:00:00.000Z',
    });
    assert.equal(reconciliationPeriod('2032-02-29', '2032-02-29').endsAt, '2032-03-01T00:00:00.000Z');
  });

  test('a day that does not exist, a period that ends before it starts, or one longer than a year is refused, saying why', () => {
    assert.throws(() => reconciliationPeriod('2031-02-29', '2031-03-01'), {
      code: 'INVALID_INPUT',
      message: '"2031-02-29" is not a date: give the first day as YYYY-MM-DD.',
    });
    assert.throws(() => reconciliationPeriod('2031-03-01', '31.3.2031'), { message: /"31\.3\.2031" is not a date/ });
    assert.throws(() => reconciliationPeriod('2031-03-02', '2031-03-01'), { message: /ends \(2031-03-01\) before/ });
    assert.doesNotThrow(() => reconciliationPeriod('2032-01-01', '2032-12-31'));
    assert.throws(() => reconciliationPeriod('2031-01-01', '2032-01-02'), { message: /at most 366 days/ });
  });

  test('an item made in the last millisecond of the period is in it, one made at the midnight after is not', () => {
    const report = match({
      items: [
        item({ reference: 'pi_last', createdAt: '2031-04-30T23:59:59.999Z' }),
        item({ reference: 'pi_next', createdAt: '2031-05-01T00:00:00.000Z' }),
        item({ reference: 'pi_first', createdAt: '2031-04-01T00:00:00.000Z' }),
        item({ reference: 'pi_before', createdAt: '2031-03-31T23:59:59.999Z' }),
      ],
    });
    assert.deepEqual(report.missingInLedger.map((i) => i.reference).sort(), ['pi_first', 'pi_last']);
  });
});

describe('reconciliation: matching by reference', () => {
  test('a payment, a refund and a chargeback with the same signed amounts match; the sign of a refund counts', () => {
    const items = [
      item(),
      item({ kind: 'refund', reference: 're_1', amountMinor: -1000, feeMinor: 0 }),
      item({ kind: 'chargeback', reference: 'dp_1', amountMinor: -3000, feeMinor: 1500 }),
    ];
    const ledger = [
      entry(),
      entry({ type: 'ONETIME_PAYMENT_REFUND', reference: 're_1', amountMinor: -1000, feeMinor: -37 }),
      entry({ type: 'CHARGEBACK', reference: 'dp_1', amountMinor: -3000, feeMinor: -109 }),
    ];
    const agreed = match({ items, ledger });
    assert.deepEqual(
      [agreed.matched, agreed.differences],
      [3, 0],
      "a reversal's fee is the vendor's share, not compared",
    );
    const flipped = match({
      items,
      ledger: ledger.map((e) => (e.reference === 're_1' ? { ...e, amountMinor: 1000 } : e)),
    });
    assert.deepEqual(
      flipped.amountsDiffer.map((d) => [d.reference, d.field, d.processor.amountMinor, d.ledger.amountMinor]),
      [['re_1', 'amount', -1000, 1000]],
    );
  });

  test("a payment's fee is compared; so is its currency, whatever the amount (1500 JPY is not 15.00 USD)", () => {
    const report = match({
      items: [item(), item({ reference: 'pi_yen', amountMinor: 1500, currency: 'JPY', feeMinor: 74 })],
      ledger: [
        entry({ feeMinor: 145 }),
        entry({ reference: 'pi_yen', amountMinor: 1500, currency: 'USD', feeMinor: 74 }),
      ],
    });
    assert.deepEqual(
      report.amountsDiffer.map((d) => [d.reference, d.field, d.processor, d.ledger]),
      [
        ['pi_1', 'fee', { amountMinor: 146, currency: 'USD' }, { amountMinor: 145, currency: 'USD' }],
        ['pi_yen', 'amount', { amountMinor: 1500, currency: 'JPY' }, { amountMinor: 1500, currency: 'USD' }],
      ],
    );
    assert.equal(report.differences, 2);
  });

  test('an entry booked twice for one item leaves the second over, in the ledger but not at the processor', () => {
    const report = match({ items: [item()], ledger: [entry(), entry({ entryId: 'entry_again' })] });
    assert.deepEqual(
      report.missingAtProcessor.map((e) => e.entryId),
      ['entry_again'],
    );
    assert.equal(report.matched, 1);
  });

  test('an item made before the period takes the entry booked in it; an item outside the period is not reported', () => {
    const report = match({
      items: [
        item({ createdAt: '2031-03-31T23:59:59.000Z' }),
        item({ reference: 'pi_old', createdAt: '2031-03-30T10:00:00.000Z' }),
      ],
      ledger: [entry({ createdAt: '2031-04-01T00:00:01.000Z' })],
    });
    assert.deepEqual([report.matched, report.differences], [0, 0]);
  });

  test('a refund that failed is netted out only when neither half is booked; booked, its failure must be too', () => {
    const refund = item({ kind: 'refund', reference: 're_2', amountMinor: -1000, feeMinor: 0, undone: true });
    const failure = item({ kind: 'refund_failed', reference: 're_2:failed', amountMinor: 1000, feeMinor: 0 });
    assert.deepEqual(
      [match({ items: [refund, failure] }).matched, match({ items: [refund, failure] }).differences],
      [2, 0],
    );
    const halfBooked = match({
      items: [refund, failure],
      elsewhere: [entry({ type: 'ONETIME_PAYMENT_REFUND', reference: 're_2', amountMinor: -1000 })],
    });
    assert.deepEqual(
      halfBooked.missingInLedger.map((i) => i.reference),
      ['re_2:failed'],
    );
  });

  test("payouts: one whose movements do not sum to it is a difference; Stripe's other items and dispute fees are shown, not counted", () => {
    const payouts = [
      {
        id: 'po_1',
        createdAt: '2031-04-12T00:00:00.000Z',
        arrivalDate: '2031-04-14',
        status: 'paid',
        currency: 'USD',
        amountMinor: 5000,
        paidOut: { netMinor: 5000, count: 3 },
      },
      {
        id: 'po_2',
        createdAt: '2031-04-13T00:00:00.000Z',
        arrivalDate: '2031-04-15',
        status: 'paid',
        currency: 'USD',
        amountMinor: 5000,
        paidOut: { netMinor: 4999, count: 3 },
      },
      {
        id: 'po_3',
        createdAt: '2031-04-14T00:00:00.000Z',
        arrivalDate: '2031-04-16',
        status: 'in_transit',
        currency: 'USD',
        amountMinor: 700,
        paidOut: null,
      },
    ];
    const report = match({
      payouts,
      items: [
        item({ kind: 'other', reference: 'fee_1', label: 'stripe_fee', amountMinor: -200, feeMinor: 0 }),
        item({ kind: 'payout', reference: 'po_1', amountMinor: -5000, feeMinor: 0 }),
        item({
          kind: 'chargeback',
          reference: 'dp_9',
          amountMinor: -500,
          balance: { currency: 'USD', amountMinor: -500, feeMinor: 1500, netMinor: -2000 },
        }),
      ],
      ledger: [entry({ type: 'CHARGEBACK', reference: 'dp_9', amountMinor: -500 })],
    });
    assert.deepEqual(
      report.payouts.map((p) => p.differenceMinor),
      [0, 1, null],
    );
    assert.deepEqual(
      report.otherItems.map((i) => i.reference),
      ['fee_1'],
    );
    assert.deepEqual(report.unbookedFees, [{ currency: 'USD', feeMinor: 1500, items: 1 }]);
    assert.deepEqual([report.matched, report.differences], [1, 1]);
  });
});

describe("reconciliation: Stripe's balance transactions in the ledger's terms", () => {
  const txn = (over: Record<string, unknown>) =>
    ({
      id: 'txn_1',
      object: 'balance_transaction',
      amount: 5950,
      available_on: 1_933_000_000,
      balance_type: 'payments',
      created: 1_933_000_000,
      currency: 'usd',
      description: null,
      exchange_rate: null,
      fee: 203,
      fee_details: [],
      net: 5747,
      reporting_category: 'charge',
      source: { id: 'ch_1', object: 'charge', amount: 5000, currency: 'eur', payment_intent: 'pi_1' },
      status: 'available',
      type: 'charge',
      ...over,
    }) as unknown as Stripe.BalanceTransaction;

  test("a euro payment settled in dollars: the payment's amount in euros, the dollar fee divided by the rate as the ledger booked it", () => {
    const payment = itemOf(txn({ exchange_rate: 1.19 }));
    assert.deepEqual(
      [payment.kind, payment.reference, payment.amountMinor, payment.currency, payment.feeMinor],
      ['payment', 'pi_1', 5000, 'EUR', Math.round(203 / 1.19)],
    );
    assert.deepEqual(payment.balance, { currency: 'USD', amountMinor: 5950, feeMinor: 203, netMinor: 5747 });
    assert.equal(payment.createdAt, new Date(1_933_000_000_000).toISOString());
  });

  test('refunds, their failure, disputes and their win are named as the ledger books them, signed as they moved the balance', () => {
    const refund = { id: 're_1', object: 'refund', amount: 1000, currency: 'usd', status: 'failed' };
    const dispute = { id: 'dp_1', object: 'dispute', amount: 3000, currency: 'usd' };
    const of = (reporting_category: string, type: string, source: object) =>
      itemOf(txn({ reporting_category, type, source, fee: 0 }));
    assert.deepEqual(
      [
        of('refund', 'refund', refund),
        of('refund_failure', 'refund_failure', refund),
        of('dispute', 'adjustment', dispute),
        of('dispute_reversal', 'adjustment', dispute),
      ].map((i) => [i.kind, i.reference, i.amountMinor, i.label, i.undone]),
      [
        ['refund', 're_1', -1000, 'refund', true],
        ['refund_failed', 're_1:failed', 1000, 'refund_failure', undefined],
        ['chargeback', 'dp_1', -3000, 'adjustment/dispute', undefined],
        ['chargeback_won', 'dp_1:won', 3000, 'adjustment/dispute_reversal', undefined],
      ],
    );
  });

  test("Stripe's own fees, transfers and payouts are not ledger items: their amount in the balance's currency", () => {
    const fee = itemOf(txn({ reporting_category: 'fee', type: 'stripe_fee', source: null, amount: -200, fee: 0 }));
    assert.deepEqual([fee.kind, fee.reference, fee.amountMinor, fee.currency], ['other', 'txn_1', -200, 'USD']);
    const payout = itemOf(txn({ reporting_category: 'payout', type: 'payout', source: 'po_1', amount: -9000, fee: 0 }));
    assert.deepEqual([payout.kind, payout.reference, payout.amountMinor], ['payout', 'po_1', -9000]);
  });
});
