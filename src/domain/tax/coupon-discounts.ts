import type { Coupon } from '../model.ts';
import type { ExchangeRates } from '../money/index.ts';
import { multiplyByRate, parseDecimal } from '../money/index.ts';
import { convertFromUsd } from './pricing.ts';

/*
 * What a coupon does to a price (docs/decisions.md §14, §38), beside the one pricing function whose
 * `discount` callback it is: the checkout's quote and every renewal it covers use these two.
 */

/** The net price after the coupon, in the currency the customer pays, rounded half up. */
export function discountedNet(
  netMinor: number,
  currency: string,
  coupon: Pick<Coupon, 'percentOff' | 'amountsOff'>,
  rates: ExchangeRates,
): number {
  let off: number;
  if (coupon.percentOff !== null) {
    const percent = parseDecimal(coupon.percentOff);
    off = multiplyByRate(netMinor, { units: percent.units, scale: percent.scale + 2 });
  } else {
    off = coupon.amountsOff[currency] ?? convertFromUsd(coupon.amountsOff.USD ?? 0, currency, rates);
  }
  return Math.max(0, netMinor - off);
}

/**
 * Whether the coupon discounts the subscription's payment of billing period `period` (the schedule's
 * number: 0 is the first payment, at checkout or when a trial ends). N periods count from the first
 * payment, so a 3-period coupon discounts periods 0, 1 and 2, and the fourth payment is in full.
 */
export function discountsPeriod(coupon: Pick<Coupon, 'duration' | 'durationPeriods'>, period: number): boolean {
  if (coupon.duration === 'forever') return true;
  const periods = coupon.duration === 'repeating' ? (coupon.durationPeriods ?? 1) : 1;
  return period < periods;
}
