import { renewalNet } from '../billing/index.ts';
import type { ExchangeRates } from '../money/index.ts';
import type { ChargeFrequency } from '../model.ts';
import type { DashboardRepository } from '../ports.ts';
import { toUsd } from './usd-conversion.ts';

/** Months a period of each frequency lasts, as a fraction numerator/denominator: per-month = net * den / num. */
const MONTHS: Record<ChargeFrequency, [number, number]> = {
  DAILY: [1, 30],
  WEEKLY: [12, 52],
  MONTHLY: [1, 1],
  HALF_YEARLY: [6, 1],
  YEARLY: [12, 1],
  UNKNOWN: [1, 1],
};

type SubscriptionGroup = Awaited<ReturnType<DashboardRepository['subscriptions']>>[number];

/** The nets of a group of subscriptions at their next renewal, summed, and the currency they are charged in. */
function nextRenewal(
  group: Pick<SubscriptionGroup, 'currency' | 'count' | 'netMinor' | 'prices' | 'coupon' | 'quantity' | 'seats'>,
  rates: ExchangeRates,
): { currency: string; netMinor: number } {
  if (!group.prices) return { currency: group.currency, netMinor: group.netMinor };
  try {
    // Each one's seats at the tier their quantity falls in, as its renewal charges (docs/decisions.md §39).
    const each = renewalNet(group.prices, group.currency, rates, group.coupon, group);
    return { currency: each.currency, netMinor: each.netMinor * group.count };
  } catch {
    return { currency: group.currency, netMinor: group.netMinor };
  }
}

/** Live subscriptions counted (active, trials, cancelling) and the MRR of the active ones, per currency and in USD. */
export function subscriptionFigures(
  groups: SubscriptionGroup[],
  rates: ExchangeRates,
): {
  mrr: Record<string, number>;
  mrrUsd: number;
  unconverted: Set<string>;
  active: number;
  trials: number;
  cancelling: number;
} {
  const mrr: Record<string, number> = {};
  const unconverted = new Set<string>();
  let mrrUsd = 0;
  let active = 0;
  let trials = 0;
  let cancelling = 0;
  for (const s of groups) {
    if (s.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL') trials += s.count;
    else if (s.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING') cancelling += s.count;
    else {
      active += s.count;
      // What the next renewal charges, not the price paid at purchase: renewals are priced anew
      // (billing.ts) and never write the transaction's net. An offer no longer priceable keeps it.
      const next = nextRenewal(s, rates);
      const [months, per] = MONTHS[s.chargeFrequency];
      const monthly = Math.round((next.netMinor * per) / months);
      mrr[next.currency] = (mrr[next.currency] ?? 0) + monthly;
    }
  }
  for (const [currency, minor] of Object.entries(mrr)) {
    const converted = toUsd(minor, currency, rates);
    if (converted === undefined) unconverted.add(currency);
    else mrrUsd += converted;
  }
  return { mrr, mrrUsd, unconverted, active, trials, cancelling };
}
