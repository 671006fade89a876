import { renewalNet } from '../billing/index.ts';
import type { Clock } from '../clock.ts';
import type { ExchangeRates } from '../money/index.ts';
import type { ChargeFrequency, Scope } from '../model.ts';
import { currencyExponent, divideRoundHalfUp, usdFirst } from '../money/index.ts';
import type { Store, TransactionFilter } from '../ports.ts';

/**
 * The vendor panel's figures (docs/decisions.md §19): revenue per day (the last 30 days) or per
 * month (the last 12), MRR, live subscriptions, trials, churn and refunds, per currency and in USD
 * through the exchange rate table. Money is the ledger's net (without tax); refunds and chargebacks
 * are its negative entries. Every sum is grouped by the database.
 */
export type Unit = 'day' | 'month';

export interface Series {
  currency: string;
  /** One value per bucket, in minor units of `currency`. */
  paid: number[];
  refunded: number[];
  paidTotal: number;
  refundedTotal: number;
}

export interface Overview {
  unit: Unit;
  /** YYYY-MM-DD or YYYY-MM, oldest first. */
  buckets: string[];
  currencies: Series[];
  /** Every currency converted to USD (those without a rate are left out and listed in `unconverted`). */
  usd: Series;
  unconverted: string[];
  ratesDate: string;
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

/** Months a period of each frequency lasts, as a fraction numerator/denominator: per-month = net * den / num. */
const MONTHS: Record<ChargeFrequency, [number, number]> = {
  DAILY: [1, 30],
  WEEKLY: [12, 52],
  MONTHLY: [1, 1],
  HALF_YEARLY: [6, 1],
  YEARLY: [12, 1],
  UNKNOWN: [1, 1],
};

/** Minor units of `currency` in USD minor units through the EUR-based table, rounded half-up; undefined without a rate. */
export function toUsd(minor: number, currency: string, rates: ExchangeRates): number | undefined {
  if (currency === 'USD') return minor;
  const usd = rates.perEuro.get('USD');
  const source = rates.perEuro.get(currency);
  if (!usd || !source) return undefined;
  // minor / 10^eSrc units * (usd / src) = USD; times 10^eUSD.
  let numerator = BigInt(minor) * usd.units * 10n ** BigInt(source.scale);
  let denominator = source.units * 10n ** BigInt(usd.scale);
  const shift = currencyExponent('USD') - currencyExponent(currency);
  if (shift >= 0) numerator *= 10n ** BigInt(shift);
  else denominator *= 10n ** BigInt(-shift);
  const negative = numerator < 0n;
  const rounded = divideRoundHalfUp(negative ? -numerator : numerator, denominator);
  return Number(negative ? -rounded : rounded);
}

/** The nets of a group of subscriptions at their next renewal, summed, and the currency they are charged in. */
function nextRenewal(
  group: { currency: string; count: number; netMinor: number; prices: Record<string, number> | undefined },
  rates: ExchangeRates,
): { currency: string; netMinor: number } {
  if (!group.prices) return { currency: group.currency, netMinor: group.netMinor };
  try {
    const each = renewalNet(group.prices, group.currency, rates);
    return { currency: each.currency, netMinor: each.netMinor * group.count };
  } catch {
    return { currency: group.currency, netMinor: group.netMinor };
  }
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

export function dashboardService(deps: { store: Store; clock: Clock; rates: ExchangeRates }) {
  return {
    async overview(scope: Scope, unit: Unit): Promise<Overview> {
      const now = deps.clock.now(scope);
      const { buckets, from, to } = bucketsOf(now, unit);
      const index = new Map(buckets.map((b, i) => [b, i]));
      const rows = await deps.store.dashboard.revenue(scope, { from, to, unit });
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
        const paidUsd = toUsd(row.paidMinor, row.currency, deps.rates);
        const refundedUsd = toUsd(row.refundedMinor, row.currency, deps.rates);
        if (paidUsd === undefined || refundedUsd === undefined) {
          unconverted.add(row.currency);
          continue;
        }
        usd.paid[i]! += paidUsd;
        usd.refunded[i]! += refundedUsd;
        usd.paidTotal += paidUsd;
        usd.refundedTotal += refundedUsd;
      }

      const subscriptions = await deps.store.dashboard.subscriptions(scope);
      const mrr: Record<string, number> = {};
      let mrrUsd = 0;
      let active = 0;
      let trials = 0;
      let cancelling = 0;
      for (const s of subscriptions) {
        if (s.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL') trials += s.count;
        else if (s.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING') cancelling += s.count;
        else {
          active += s.count;
          // What the next renewal charges, not the price paid at purchase: renewals are priced anew
          // (billing.ts) and never write the transaction's net. An offer no longer priceable keeps it.
          const next = nextRenewal(s, deps.rates);
          const [months, per] = MONTHS[s.chargeFrequency];
          const monthly = Math.round((next.netMinor * per) / months);
          mrr[next.currency] = (mrr[next.currency] ?? 0) + monthly;
        }
      }
      for (const [currency, minor] of Object.entries(mrr)) {
        const converted = toUsd(minor, currency, deps.rates);
        if (converted === undefined) unconverted.add(currency);
        else mrrUsd += converted;
      }
      const churned30 = await deps.store.dashboard.churned(
        scope,
        new Date(now.getTime() - 30 * 86_400_000).toISOString(),
      );
      const base = active + trials + churned30;
      return {
        unit,
        buckets,
        currencies: [...byCurrency.values()].sort((a, b) => usdFirst(a.currency, b.currency)),
        usd,
        unconverted: [...unconverted].sort(),
        ratesDate: deps.rates.date,
        payments,
        refunds,
        mrr: { byCurrency: mrr, usd: mrrUsd },
        activeSubscriptions: active,
        trials,
        cancellingSubscriptions: cancelling,
        churned30,
        churnRate: base > 0 ? churned30 / base : 0,
      };
    },

    transactions: (scope: Scope, filter: TransactionFilter, page: { limit: number; offset: number }) =>
      deps.store.dashboard.searchTransactions(scope, filter, page),
    customers: (scope: Scope, query: string | undefined, page: { limit: number; offset: number }) =>
      deps.store.dashboard.customers(scope, query, page),
    async customer(scope: Scope, id: string) {
      const customer = await deps.store.dashboard.customer(scope, id);
      if (!customer) return undefined;
      const { transactions } = await deps.store.dashboard.searchTransactions(
        scope,
        { customerId: id },
        { limit: 200, offset: 0 },
      );
      return { ...customer, transactions };
    },
  };
}

export type DashboardService = ReturnType<typeof dashboardService>;
