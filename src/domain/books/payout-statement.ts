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
 * before the end of that day (or before now, if sooner), and payments only once `holdDays` old.
 */
export function statementWindow(now: Date, until: string, holdDays: number): { until: string; heldFrom: string } {
  const end = Date.parse(`${until}T00:00:00.000Z`) + DAY_MS;
  return {
    // Entries are covered before `until`: capped just after now, which takes in one booked this moment.
    until: new Date(Math.min(end, now.getTime() + 1)).toISOString(),
    heldFrom: heldFrom(now, holdDays),
  };
}

/** Payments booked from this moment on are still held back: `holdDays` before now. */
export function heldFrom(now: Date, holdDays: number): string {
  return new Date(now.getTime() - holdDays * DAY_MS).toISOString();
}
