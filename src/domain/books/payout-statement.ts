import { invalidInput } from '../errors.ts';
import type { CoveredSums } from '../ports.ts';
import type { PayoutStatement, StatementTotals } from './payout-model.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What a statement pays, from the sums of the entries it covers and what the statement before carried
 * to it: the vendor's income plus the carry, paid when it is above zero; a total below zero is paid
 * nothing and carried, whole, to the next statement (docs/decisions.md §22). Pure and exact.
 */
export function settle(
  sums: CoveredSums,
  carriedInMinor: number,
): Pick<PayoutStatement, 'entryCount' | 'totals' | 'payableMinor' | 'carriedOutMinor'> {
  const lines =
    sums.grossMinor +
    sums.refundsMinor +
    sums.chargebacksMinor -
    sums.taxMinor -
    sums.processorFeesMinor -
    sums.platformFeesMinor;
  const totals: StatementTotals = {
    grossMinor: sums.grossMinor,
    taxMinor: sums.taxMinor,
    refundsMinor: sums.refundsMinor,
    chargebacksMinor: sums.chargebacksMinor,
    processorFeesMinor: sums.processorFeesMinor,
    platformFeesMinor: sums.platformFeesMinor,
    incomeMinor: sums.incomeMinor,
    roundingMinor: sums.incomeMinor - lines,
  };
  const owed = sums.incomeMinor + carriedInMinor;
  return {
    entryCount: sums.count,
    totals,
    payableMinor: Math.max(0, owed),
    carriedOutMinor: Math.min(0, owed),
  };
}

/**
 * The moments a statement made `now` up to the day `until` (YYYY-MM-DD, inclusive, UTC) covers: entries
 * before the end of that day (or before now, if sooner), and payments only once `holdDays` old. Along a
 * chain the window only moves forward (what the store's coverage rests on: src/store/payout-coverage.ts):
 * a day before the last statement's end is refused, and a clock that stepped back (or a longer hold) is
 * held at the last statement's lines.
 */
export function statementWindow(
  now: Date,
  until: string,
  holdDays: number,
  last?: Pick<PayoutStatement, 'until' | 'heldFrom' | 'currency'>,
): { until: string; heldFrom: string } {
  const end = new Date(Date.parse(`${until}T00:00:00.000Z`) + DAY_MS).toISOString();
  if (last && end < last.until)
    throw invalidInput(
      `The last ${last.currency} statement covers entries up to ${last.until}; give ${last.until.slice(0, 10)} or a later day.`,
    );
  // Entries are covered before `until`: capped just after now, which takes in one booked this moment.
  const window = { until: min(end, new Date(now.getTime() + 1).toISOString()), heldFrom: heldFrom(now, holdDays) };
  return last ? { until: max(window.until, last.until), heldFrom: max(window.heldFrom, last.heldFrom) } : window;
}

const min = (a: string, b: string) => (a < b ? a : b);
const max = (a: string, b: string) => (a > b ? a : b);

/** Payments booked from this moment on are still held back: `holdDays` before now. */
export function heldFrom(now: Date, holdDays: number): string {
  return new Date(now.getTime() - holdDays * DAY_MS).toISOString();
}
