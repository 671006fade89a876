import { periodStartOf } from './billing-period.ts';
import { scopeOf, type BillingContext } from './billing-context.ts';
import { renewalDiscount } from './renewal-coupons.ts';
import type { ExchangeRates } from '../money/index.ts';
import type { Coupon, SeatPricing } from '../model.ts';
import { vendorFeeTerms, type FeeTerms } from '../payments/index.ts';
import type { DueSubscription, DueTransaction, Repositories } from '../ports.ts';
import { discountedNet, listPrice, quotePrice, seatUnitPrices, type PriceQuote } from '../tax/index.ts';

/** What billing does about one due subscription, decided before any gateway is asked. */
export type Plan =
  | { kind: 'end'; due: DueSubscription; at: Date }
  | { kind: 'clear'; due: DueSubscription; at: Date }
  | { kind: 'hold'; due: DueSubscription; at: Date; reason: string }
  | {
      kind: 'charge';
      due: DueSubscription;
      at: Date;
      quote: PriceQuote;
      /** The platform's fee in force for the vendor as its batch was planned. */
      fee: FeeTerms;
      period: number;
      periodStart: string;
      key: string;
      /** The processor's payment of the try before, held for the customer's authentication: cancelled before this try charges. */
      heldPayment?: string;
    };

export type ChargePlan = Extract<Plan, { kind: 'charge' }>;

/** What a batch reads once: an offer's prices by its id, and a vendor's fee terms by its id. */
export interface PriceCache {
  prices: Map<string, Record<string, number> | undefined>;
  fees: Map<string, FeeTerms>;
  /** Coupons subscriptions were bought with, by id (docs/decisions.md §38). */
  coupons: Map<string, Coupon | undefined>;
}

export const newPriceCache = (): PriceCache => ({ prices: new Map(), fees: new Map(), coupons: new Map() });

async function feeOf(ctx: BillingContext, repos: Repositories, vendorId: string, cache: PriceCache) {
  let terms = cache.fees.get(vendorId);
  if (!terms) cache.fees.set(vendorId, (terms = await vendorFeeTerms(repos, vendorId, ctx.deps)));
  return terms;
}

/** Renewals may be charged in the purchase's currency converted from USD once the vendor removed that currency's price. */
const RENEWALS_CONVERT = true;

/**
 * The net (before tax) and currency a subscription's next renewal charges: its offer's prices as they
 * are now, in the currency of the purchase, less the coupon its next renewal applies, if any. The transaction's
 * own net stays the price of the purchase; the dashboard's MRR reads this instead (docs/decisions.md §19). Its
 * seats are priced at the tier their quantity falls in, times the quantity, before the coupon, as a renewal's (§39).
 */
export function renewalNet(
  prices: Readonly<Record<string, number>>,
  currency: string,
  rates: ExchangeRates,
  coupon?: Pick<Coupon, 'percentOff' | 'amountsOff'>,
  { quantity, seats }: { quantity: number; seats: SeatPricing | null } = { quantity: 1, seats: null },
): { currency: string; netMinor: number } {
  const unit = seatUnitPrices({ prices, seats }, quantity);
  const list = listPrice({ prices: unit, currency, allowConversion: RENEWALS_CONVERT, rates, quantity });
  // A lasting coupon the next renewal applies counts while it lasts (docs/decisions.md §38).
  return coupon ? { ...list, netMinor: discountedNet(list.netMinor, list.currency, coupon, rates) } : list;
}

/** In a sandbox whose clock was moved, a step happens at its scheduled moment; elsewhere, when it is done. */
function stepTime(ctx: BillingContext, t: DueTransaction): Date {
  const real = ctx.deps.clock.real();
  const vendorNow = ctx.deps.clock.now(scopeOf(t));
  if (vendorNow.getTime() === real.getTime() || !t.nextCharge) return real;
  return new Date(Math.min(vendorNow.getTime(), Math.max(Date.parse(t.nextCharge), real.getTime())));
}

/** The offer's unit prices now for the subscription's seats (the tier its quantity falls in, docs/decisions.md §39). */
async function pricesOf(repos: Repositories, t: DueTransaction, { prices: cache }: PriceCache) {
  const id = t.customizedProductId ?? t.productId;
  const key = `${id}:${t.quantity}`;
  if (!cache.has(key)) {
    const scope = scopeOf(t);
    const offer = t.customizedProductId
      ? await repos.customizedProducts.find(scope, id)
      : await repos.products.find(scope, id);
    cache.set(key, offer && seatUnitPrices(offer, t.quantity, !!t.customizedProductId));
  }
  return cache.get(key);
}

/** The step due for one claimed subscription: end it, clear it, hold it, or charge its period at today's price. */
export async function planStep(
  ctx: BillingContext,
  repos: Repositories,
  due: DueSubscription,
  prices: PriceCache,
): Promise<Plan> {
  const t = due.transaction;
  const at = stepTime(ctx, t);
  if (t.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING') return { kind: 'end', due, at };
  if ((t.status !== 'SUBSCRIPTION_STATUS_ACTIVE' && t.status !== 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL') || !t.billing)
    return { kind: 'clear', due, at };
  const list = await pricesOf(repos, t, prices);
  if (!list) return { kind: 'hold', due, at, reason: `${t.id}: its product is gone` };
  try {
    // Renewals are priced by the one pricing function, in the currency and place of the purchase.
    // A business buyer's reverse charge holds for every renewal of its subscription.
    const quote = quotePrice({
      prices: list,
      currency: t.currency,
      country: t.country,
      region: t.region,
      zip: t.postalCode,
      usSalesTax: ctx.deps.usSalesTax,
      reverseCharge: t.reverseCharge,
      allowConversion: RENEWALS_CONVERT,
      rates: ctx.deps.rates,
      quantity: t.quantity,
      // The purchase's coupon, for the periods its duration covers (renewal-coupons.ts).
      discount: await renewalDiscount(repos, t, prices.coupons, ctx.deps.rates),
    });
    const fee = await feeOf(ctx, repos, t.vendorId, prices);
    const { period, failedAttempts } = t.billing;
    const start = periodStartOf(t.billing, t.chargeFrequency, period).toISOString();
    return {
      kind: 'charge',
      due,
      at,
      quote,
      fee,
      period,
      periodStart: start,
      key: `renewal:${t.id}:${period}:${failedAttempts}`,
    };
  } catch (err) {
    return { kind: 'hold', due, at, reason: `${t.id}: ${(err as Error).message}` };
  }
}
