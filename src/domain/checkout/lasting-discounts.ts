import type { Offer } from '../catalog/index.ts';
import type { Coupon } from '../model.ts';
import type { PriceQuote } from '../tax/index.ts';

/**
 * What a checkout says of a subscription's coupon beyond today's price (docs/decisions.md §38): how
 * long it lasts, and the total each period costs once it ends ("20% off for 3 months, then $9.00").
 */
export interface LastingDiscount {
  coupon: Pick<Coupon, 'code' | 'percentOff' | 'duration' | 'durationPeriods'>;
  /** The discount of a period it covers, in the quote's currency. */
  discountMinor: number;
  /** The period's total (tax included) without the coupon, priced by the same function. */
  thenTotalMinor: number;
  currency: string;
  frequency: Offer['product']['chargeFrequency'];
}

/** A subscription's coupon as its checkout tells it; none for other products (their discount line says it all). */
export function lastingDiscount(
  offer: Offer,
  coupon: Coupon | null,
  quote: PriceQuote,
  undiscounted: () => PriceQuote,
): LastingDiscount | null {
  if (!coupon || offer.product.type !== 'SUBSCRIPTION' || quote.discountMinor === 0) return null;
  return {
    coupon,
    discountMinor: quote.discountMinor,
    thenTotalMinor: undiscounted().totalMinor,
    currency: quote.currency,
    frequency: offer.product.chargeFrequency,
  };
}
