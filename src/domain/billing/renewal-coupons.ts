import type { ExchangeRates } from '../money/index.ts';
import type { Coupon } from '../model.ts';
import type { DueTransaction, Repositories } from '../ports.ts';
import { discountedNet, discountsPeriod } from '../tax/index.ts';
import { scopeOf } from './billing-context.ts';

/**
 * The coupon's part in a renewal's price (docs/decisions.md §38): the discount callback of the one
 * pricing function when the coupon the subscription was bought with covers the period charged, else
 * none. A coupon revoked or expired after the purchase keeps discounting what it granted: revoking
 * stops new purchases with it, not the discounts already given.
 */
export async function renewalDiscount(
  repos: Repositories,
  t: Pick<DueTransaction, 'couponId' | 'billing' | 'vendorId' | 'environment'>,
  cache: Map<string, Coupon | undefined>,
  rates: ExchangeRates,
): Promise<((netMinor: number, currency: string) => number) | undefined> {
  if (!t.couponId || !t.billing) return undefined;
  if (!cache.has(t.couponId)) cache.set(t.couponId, await repos.coupons.find(scopeOf(t), t.couponId));
  const coupon = cache.get(t.couponId);
  if (!coupon || !discountsPeriod(coupon, t.billing.period)) return undefined;
  return (netMinor, currency) => discountedNet(netMinor, currency, coupon, rates);
}
