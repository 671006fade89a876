import type { Clock } from '../clock.ts';
import type { ExchangeRates } from '../money/index.ts';
import { usdFirst } from '../money/index.ts';
import type { Scope } from '../model.ts';
import type { Store } from '../ports.ts';
import { revenueFigures, type Series } from './revenue.ts';
import { subscriptionFigures } from './subscription-figures.ts';
import { usdPerUnit } from './usd-conversion.ts';

/**
 * The vendor panel's figures (docs/decisions.md §19): revenue per day (the last 30 days) or per
 * month (the last 12), MRR, live subscriptions, trials, churn and refunds, per currency and in USD
 * through the exchange rate table. Money is the ledger's net (without tax); refunds and chargebacks
 * are its negative entries. Every sum is grouped by the database.
 */
export type Unit = 'day' | 'month';

export interface Overview {
  unit: Unit;
  /** YYYY-MM-DD or YYYY-MM, oldest first. */
  buckets: string[];
  currencies: Series[];
  /** Every currency converted to USD (those without a rate are left out and listed in `unconverted`). */
  usd: Series;
  unconverted: string[];
  /** The date of the exchange-rate table every USD figure here converts at (one table for every day shown). */
  ratesDate: string;
  /** What one unit of each other currency shown (revenue or MRR) is in USD at that table, by currency. */
  usdRates: { currency: string; usd: string }[];
  payments: number;
  refunds: number;
  /**
   * Monthly recurring revenue of active subscriptions (not trials, not those cancelled to the end of
   * their period), at the price each one's next renewal charges.
   */
  mrr: { byCurrency: Record<string, number>; usd: number };
  activeSubscriptions: number;
  trials: number;
  cancellingSubscriptions: number;
  /** Subscriptions that stopped renewing in the last 30 days, by their cancellation date (not a later change); plan switches are not churn. */
  churned30: number;
  /** Churned in 30 days over (active + trials + churned): a share, 0 to 1. */
  churnRate: number;
}

/** The buckets ending with the one that holds `now`: 30 days or 12 months, oldest first, and the ISO range they cover. */
export function bucketsOf(now: Date, unit: Unit): { buckets: string[]; from: string; to: string } {
  const buckets: string[] = [];
  if (unit === 'day') {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    for (let i = 29; i >= 0; i--) buckets.push(new Date(today - i * 86_400_000).toISOString().slice(0, 10));
    return { buckets, from: `${buckets[0]}T00:00:00.000Z`, to: new Date(today + 86_400_000).toISOString() };
  }
  for (let i = 11; i >= 0; i--)
    buckets.push(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1)).toISOString().slice(0, 7));
  return {
    buckets,
    from: `${buckets[0]}-01T00:00:00.000Z`,
    to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  };
}

/** The panel's overview of a scope: revenue of the last 30 days or 12 months, MRR, subscriptions and churn. */
export async function overview(
  deps: { store: Store; clock: Clock; rates: ExchangeRates },
  scope: Scope,
  unit: Unit,
): Promise<Overview> {
  const now = deps.clock.now(scope);
  const { buckets, from, to } = bucketsOf(now, unit);
  const revenue = revenueFigures(buckets, await deps.store.dashboard.revenue(scope, { from, to, unit }), deps.rates);
  const subscriptions = subscriptionFigures(await deps.store.dashboard.subscriptions(scope), deps.rates);
  const churned30 = await deps.store.dashboard.churned(scope, new Date(now.getTime() - 30 * 86_400_000).toISOString());
  const base = subscriptions.active + subscriptions.trials + churned30;
  return {
    unit,
    buckets,
    currencies: [...revenue.byCurrency.values()].sort((a, b) => usdFirst(a.currency, b.currency)),
    usd: revenue.usd,
    unconverted: [...new Set([...revenue.unconverted, ...subscriptions.unconverted])].sort(),
    ratesDate: deps.rates.date,
    usdRates: usdRatesOf([...revenue.byCurrency.keys(), ...Object.keys(subscriptions.mrr)], deps.rates),
    payments: revenue.payments,
    refunds: revenue.refunds,
    mrr: { byCurrency: subscriptions.mrr, usd: subscriptions.mrrUsd },
    activeSubscriptions: subscriptions.active,
    trials: subscriptions.trials,
    cancellingSubscriptions: subscriptions.cancelling,
    churned30,
    churnRate: base > 0 ? churned30 / base : 0,
  };
}

/** The rate of each currency but USD, in the order the page lists currencies. */
function usdRatesOf(currencies: string[], rates: ExchangeRates): Overview['usdRates'] {
  return [...new Set(currencies)]
    .filter((currency) => currency !== 'USD')
    .sort(usdFirst)
    .flatMap((currency) => {
      const usd = usdPerUnit(currency, rates);
      return usd ? [{ currency, usd }] : [];
    });
}
