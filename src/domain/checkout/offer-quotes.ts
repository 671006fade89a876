import type { Offer } from '../catalog/index.ts';
import { discountedNet, purchaseQuantity, requireOnSale } from '../catalog/index.ts';
import type { Coupon, Scope, Vendor } from '../model.ts';
import { sellerCountryOf } from '../production-access.ts';
import type { ExchangeRates } from '../money/index.ts';
import { localCurrencyOf, quotePrice, seatUnitPrices, type PriceQuote, type UsSalesTaxTable } from '../tax/index.ts';
import { requireCountry } from '../validation.ts';
import { businessTax, type BusinessTax } from './business-buyers.ts';
import { dueToday, type DueToday } from './due-today.ts';
import { lastingDiscount, type LastingDiscount } from './lasting-discounts.ts';
import type { Locality, PurchaseDeps } from './purchase-request.ts';

/** How an offer is priced beyond the customer's place: the vendor's conversion setting, the US table, reverse charge. */
interface PricingContext {
  rates: ExchangeRates;
  allowConversion: boolean;
  usSalesTax?: UsSalesTaxTable | undefined;
  reverseCharge?: boolean | undefined;
}

export type Seller = ReturnType<typeof sellerFrom>;

/** The one price of an offer for a customer: what the widget shows, the checkout shows and charges. */
export function priceOffer(
  offer: Offer,
  locality: Locality,
  context: PricingContext,
  currency?: string,
  coupon?: Coupon,
  quantity = 1,
): PriceQuote {
  const { rates } = context;
  return quotePrice({
    discount: coupon ? (netMinor, paidIn) => discountedNet(netMinor, paidIn, coupon, rates) : undefined,
    // Per seat: the unit price of the tier the quantity falls in, times the quantity (docs/decisions.md §39).
    prices: seatUnitPrices(offer.product, quantity, offer.customized !== null),
    quantity,
    currency: currency ?? localCurrencyOf(locality.country) ?? 'USD',
    country: locality.country,
    region: locality.region ?? null,
    zip: locality.zip ?? null,
    usSalesTax: context.usSalesTax,
    reverseCharge: context.reverseCharge,
    allowConversion: context.allowConversion,
    rates,
  });
}

/** How this seller prices for this buyer: the deps' rates and US table, the vendor's conversion, reverse charge. */
export function pricingFor(deps: PurchaseDeps, seller: Seller, business: BusinessTax | null): PricingContext {
  return {
    rates: deps.rates,
    allowConversion: seller.allowConversion,
    usSalesTax: deps.usSalesTax,
    reverseCharge: business?.reverseCharge,
  };
}

/** The vendor's settings that pricing depends on: conversion, and the seller's country (for reverse charge). */
export function sellerFrom(deps: Pick<PurchaseDeps, 'sellerOfRecord'>, vendor: Vendor | undefined) {
  return {
    allowConversion: vendor?.allowConversion ?? true,
    country: sellerCountryOf(vendor, deps.sellerOfRecord)?.toUpperCase() || null,
  };
}

export const sellerOf = async (deps: PurchaseDeps, scope: Scope) =>
  sellerFrom(deps, await deps.store.vendors.find(scope.vendorId));

/**
 * The offer behind a product or customized-product id, priced for a customer at `locality` (and,
 * with `vatId`, a business buyer: `business` says whether the ID is valid and reverse charge applies).
 */
export async function quoteOffer(
  deps: PurchaseDeps,
  scope: Scope,
  productId: string,
  locality: Locality,
  couponCode?: string,
  vatId?: string,
  quantity?: unknown,
): Promise<{
  offer: Offer;
  quote: PriceQuote;
  today: DueToday;
  coupon: Coupon | null;
  business: BusinessTax | null;
  quantity: number;
  /** A subscription's coupon beyond today: how long, and then what (docs/decisions.md §38). */
  lasting: LastingDiscount | null;
}> {
  const offer = await deps.catalog.resolveOffer(scope, productId);
  // A price is shown only for what is sold: an archived product's is refused (docs/decisions.md §28).
  requireOnSale(offer.product);
  const seats = offerQuantity(offer, quantity);
  const coupon = couponCode ? await deps.coupons.redeemable(scope, offer.product.id, couponCode) : null;
  const seller = await sellerOf(deps, scope);
  const country = requireCountry(locality.country);
  const business = await businessTax(deps, vatId, country, seller.country);
  const quote = priceOffer(
    offer,
    { ...locality, country },
    pricingFor(deps, seller, business),
    locality.currency,
    coupon ?? undefined,
    seats,
  );
  const lasting = lastingDiscount(offer, coupon, quote, () =>
    priceOffer(
      offer,
      { ...locality, country },
      pricingFor(deps, seller, business),
      locality.currency,
      undefined,
      seats,
    ),
  );
  return { offer, coupon, business, quote, today: dueToday(offer, quote.totalMinor), quantity: seats, lasting };
}

/** The seats of a purchase of this offer: a customized product's own quantity, else the buyer's, in the product's range. */
export function offerQuantity(offer: Offer, requested: unknown): number {
  return purchaseQuantity(offer.product, offer.customized?.quantity ?? requested);
}
