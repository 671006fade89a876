import type { ChargeFrequency } from '../model.ts';

const MONTHS: Partial<Record<ChargeFrequency, number>> = { MONTHLY: 1, HALF_YEARLY: 6, YEARLY: 12 };
const DAYS: Partial<Record<ChargeFrequency, number>> = { DAILY: 1, WEEKLY: 7 };

/**
 * The start of the n-th period of a subscription anchored at `anchor`, calendar-correct in UTC:
 * every date is computed from the anchor, not from the previous one, so a subscription started on
 * 31 January renews on the last day of February and then on 31 March.
 */
export function periodStart(anchor: Date, frequency: ChargeFrequency, n: number): Date {
  const days = DAYS[frequency];
  if (days !== undefined) return new Date(anchor.getTime() + n * days * 86_400_000);
  const months = MONTHS[frequency];
  if (months === undefined) throw new Error(`${frequency} is not a recurring frequency`);
  const totalMonths = anchor.getUTCMonth() + n * months;
  const year = anchor.getUTCFullYear() + Math.floor(totalMonths / 12);
  const month = ((totalMonths % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const result = new Date(anchor.getTime());
  result.setUTCFullYear(year, month, Math.min(anchor.getUTCDate(), lastDay));
  return result;
}

/**
 * The start of period `n` of a schedule: counted from its anchor, which starts period `anchorPeriod`
 * (a resume re-anchors there, docs/decisions.md §41).
 */
export function periodStartOf(
  billing: { anchor: string; anchorPeriod?: number | undefined },
  frequency: ChargeFrequency,
  n: number,
): Date {
  return periodStart(new Date(billing.anchor), frequency, n - (billing.anchorPeriod ?? 0));
}

/** Dunning (docs/decisions.md §15): a declined renewal is retried 1, 3, 5 and 7 days after its due date. */
export const RETRY_DAYS: readonly number[] = [1, 3, 5, 7];

/** When the next try of a period due at `due` happens after `failedAttempts` declines, or null when none is left. */
export function retryAt(due: Date, failedAttempts: number): Date | null {
  const days = RETRY_DAYS[failedAttempts - 1];
  return days === undefined ? null : new Date(due.getTime() + days * 86_400_000);
}
