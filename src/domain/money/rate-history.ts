import { invalidInput } from '../errors.ts';
import { minorRate, parseExchangeRates, type ExchangeRates } from './exchange-rates.ts';
import { divideRoundHalfUp } from './money.ts';

/**
 * Every day of an ECB file: the history (eurofxref-hist.xml, newest day first) or a daily file (one
 * day), each day checked as `parseExchangeRates` checks a table. A CSV table is one day.
 */
export function parseExchangeRateDays(text: string): ExchangeRates[] {
  const body = text.replace(/^\uFEFF/, '');
  if (!body.trimStart().startsWith('<')) return [parseExchangeRates(body)];
  const days = [
    ...body.matchAll(/<(?:[\w-]+:)?Cube\s+time\s*=\s*["'](\d{4}-\d{2}-\d{2})["']\s*>([\s\S]*?)<\/(?:[\w-]+:)?Cube>/g),
  ];
  if (days.length === 0) return [parseExchangeRates(body)];
  return days.map(([, date, inner]) => parseExchangeRates(`<Cube time="${date}">${inner}</Cube>`));
}

/**
 * The table of `day` (YYYY-MM-DD) as the ECB publishes for it: that day's, or on a weekend or holiday
 * the last day published before it, at most a week before. INVALID_INPUT when the tables have none.
 */
export function ratesOfDay(tables: readonly ExchangeRates[], day: string): ExchangeRates {
  const weekBefore = new Date(Date.parse(`${day}T00:00:00.000Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
  const found = tables
    .filter((t) => t.date <= day && t.date >= weekBefore)
    .sort((a, b) => b.date.localeCompare(a.date))[0];
  if (!found)
    throw invalidInput(
      `No ECB reference rates for ${day} or the week before it (the tables at hand are of ${[...new Set(tables.map((t) => t.date))].sort().slice(-3).join(', ') || 'no day'}). Give the ECB history (eurofxref-hist.xml) with --rates.`,
    );
  return found;
}

/** `minor` units of `currency` in euro cents at the table, rounded half-up once. */
export function toEuroMinor(minor: number, currency: string, rates: ExchangeRates): number {
  const rate = minorRate(currency, 'EUR', rates);
  if (!rate) throw invalidInput(`The ECB table of ${rates.date} has no rate for ${currency}.`);
  return Number(divideRoundHalfUp(BigInt(minor) * rate.numerator, rate.denominator));
}

/** The days of both, one table per date, the newer import's where both have a date. */
export function mergeRateDays(kept: readonly ExchangeRates[], imported: readonly ExchangeRates[]): ExchangeRates[] {
  const byDate = new Map(kept.map((t) => [t.date, t]));
  for (const t of imported) byDate.set(t.date, t);
  return [...byDate.values()].sort((a, b) => b.date.localeCompare(a.date));
}
