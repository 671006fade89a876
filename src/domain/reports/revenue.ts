import type { ExchangeRates } from '../money/index.ts';
import type { DashboardRepository } from '../ports.ts';
import { toUsd } from './usd-conversion.ts';

export interface Series {
  currency: string;
  /** One value per bucket, in minor units of `currency`. */
  paid: number[];
  refunded: number[];
  paidTotal: number;
  refundedTotal: number;
}

type RevenueRow = Awaited<ReturnType<DashboardRepository['revenue']>>[number];

/** The revenue of the overview's buckets: a series per currency, all of them in USD, and the payments and refunds counted. */
export function revenueFigures(
  buckets: string[],
  rows: RevenueRow[],
  rates: ExchangeRates,
): { byCurrency: Map<string, Series>; usd: Series; unconverted: Set<string>; payments: number; refunds: number } {
  const index = new Map(buckets.map((b, i) => [b, i]));
  const byCurrency = new Map<string, Series>();
  const empty = (currency: string): Series => ({
    currency,
    paid: buckets.map(() => 0),
    refunded: buckets.map(() => 0),
    paidTotal: 0,
    refundedTotal: 0,
  });
  const usd = empty('USD');
  const unconverted = new Set<string>();
  let payments = 0;
  let refunds = 0;
  for (const row of rows) {
    const i = index.get(row.bucket);
    if (i === undefined) continue;
    const series = byCurrency.get(row.currency) ?? empty(row.currency);
    byCurrency.set(row.currency, series);
    series.paid[i]! += row.paidMinor;
    series.refunded[i]! += row.refundedMinor;
    series.paidTotal += row.paidMinor;
    series.refundedTotal += row.refundedMinor;
    payments += row.payments;
    refunds += row.refunds;
    const paidUsd = toUsd(row.paidMinor, row.currency, rates);
    const refundedUsd = toUsd(row.refundedMinor, row.currency, rates);
    if (paidUsd === undefined || refundedUsd === undefined) {
      unconverted.add(row.currency);
      continue;
    }
    usd.paid[i]! += paidUsd;
    usd.refunded[i]! += refundedUsd;
    usd.paidTotal += paidUsd;
    usd.refundedTotal += refundedUsd;
  }
  return { byCurrency, usd, unconverted, payments, refunds };
}
