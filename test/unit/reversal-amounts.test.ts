import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { LedgerEntry } from '../../src/domain/model.ts';
import { nextReversal, reversalsOf, reversedMinor, SPLIT_FIELDS } from '../../src/domain/payments/reversal-amounts.ts';

/** A payment with any tax, fees and income that add up as a payment entry's do. */
const payment = fc
  .record({
    netMinor: fc.integer({ min: 1, max: 10_000_000 }),
    taxMinor: fc.integer({ min: 0, max: 3_000_000 }),
    transactionFeeMinor: fc.integer({ min: 0, max: 400_000 }),
    serviceFeeMinor: fc.integer({ min: 0, max: 200_000 }),
    affiliateIncomeMinor: fc.integer({ min: 0, max: 100_000 }),
  })
  .map(
    (p) =>
      ({
        id: 'pay',
        transactionId: 'tx',
        reversesEntryId: null,
        amountTotalMinor: p.netMinor + p.taxMinor,
        incomeMinor: p.netMinor - p.transactionFeeMinor - p.serviceFeeMinor,
        ...p,
      }) as LedgerEntry,
  );

/** Splits `total` into 1 to 6 positive parts, in some order. */
const parts = (total: number) =>
  fc.array(fc.integer({ min: 1, max: total }), { minLength: 0, maxLength: 5 }).map((cuts) => {
    const points = [...new Set(cuts.filter((c) => c < total))].sort((a, b) => a - b);
    return [...points, total].map((point, i) => point - (i === 0 ? 0 : points[i - 1]!));
  });

test('a payment reversed in any number of parts: each part adds up, none takes more than is left, and all of them are exactly minus the payment', () => {
  fc.assert(
    fc.property(
      payment.chain((p) => fc.tuple(fc.constant(p), parts(p.amountTotalMinor))),
      ([p, amounts]) => {
        const reversals: LedgerEntry[] = [];
        for (const [i, amount] of amounts.entries()) {
          const next = nextReversal(p, reversals, amount);
          assert.equal(next.amountTotalMinor, -amount);
          assert.equal(next.netMinor + next.taxMinor, -amount, 'a reversal adds up');
          for (const field of [...SPLIT_FIELDS, 'netMinor'] as const)
            assert.ok(Number.isSafeInteger(next[field]), field);
          reversals.push({ ...p, ...next, id: `r${i}`, reversesEntryId: p.id });
          assert.equal(
            reversedMinor(reversals),
            amounts.slice(0, i + 1).reduce((a, b) => a + b, 0),
          );
        }
        for (const field of ['amountTotalMinor', 'netMinor', ...SPLIT_FIELDS] as const) {
          assert.equal(
            reversals.reduce((sum, r) => sum + r[field], 0),
            0 - p[field],
            `${field}: the parts are minus the payment, to the minor unit`,
          );
        }
        assert.throws(() => nextReversal(p, reversals, 1), RangeError, 'nothing is left to take');
      },
    ),
    { numRuns: 500 },
  );
});

test('every part is its share of the payment, rounded: never more than a minor unit from tax × part ÷ total', () => {
  fc.assert(
    fc.property(
      payment.chain((p) => fc.tuple(fc.constant(p), fc.integer({ min: 1, max: p.amountTotalMinor }))),
      ([p, amount]) => {
        const next = nextReversal(p, [], amount);
        assert.ok(Math.abs(-next.taxMinor - (p.taxMinor * amount) / p.amountTotalMinor) <= 0.5 + 1e-9);
      },
    ),
  );
});

test('a reversal that is undone (a dispute won) gives its part back: the payment may be taken back again', () => {
  const p = {
    id: 'pay',
    transactionId: 'tx',
    reversesEntryId: null,
    amountTotalMinor: 4000,
    netMinor: 3361,
    taxMinor: 639,
    incomeMinor: 3200,
    transactionFeeMinor: 161,
    serviceFeeMinor: 0,
    affiliateIncomeMinor: 0,
  } as LedgerEntry;
  const refund = { ...p, ...nextReversal(p, [], 1000), id: 'refund', reversesEntryId: 'pay' };
  const chargeback = { ...p, ...nextReversal(p, [refund], 3000), id: 'cb', reversesEntryId: 'pay' };
  const won = {
    ...chargeback,
    id: 'won',
    reversesEntryId: 'cb',
    amountTotalMinor: 3000,
    taxMinor: -chargeback.taxMinor,
    netMinor: -chargeback.netMinor,
  };
  const unrelated = { ...p, id: 'other', reversesEntryId: 'someone-else' };
  const all = [p, refund, chargeback, won, unrelated] as LedgerEntry[];
  assert.deepEqual(
    reversalsOf(all, p).map((e) => e.id),
    ['refund', 'cb', 'won'],
  );
  assert.equal(reversedMinor(reversalsOf(all, p)), 1000);
  assert.equal(nextReversal(p, reversalsOf(all, p), 3000).amountTotalMinor, -3000);
});

test('a part of nothing, or more than is left, is refused', () => {
  const p = {
    id: 'pay',
    amountTotalMinor: 100,
    netMinor: 100,
    taxMinor: 0,
    incomeMinor: 100,
    transactionFeeMinor: 0,
    serviceFeeMinor: 0,
    affiliateIncomeMinor: 0,
  } as LedgerEntry;
  assert.throws(() => nextReversal(p, [], 0), RangeError);
  assert.throws(() => nextReversal(p, [], 101), RangeError);
  assert.equal(nextReversal(p, [], 100).amountTotalMinor, -100);
});
