import type { ChargeFrequency } from './model.ts';

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
