import { invalidInput } from '../errors.ts';
import type { SeatPricing } from '../model.ts';
import type { ExchangeRates } from '../money/index.ts';
import { divideRoundHalfUp, minorRate, formatDecimal, formatMinor, multiplyByRate, safeMinor } from '../money/index.ts';
import { REVERSE_CHARGE, taxRateFor, type UsSalesTaxTable } from './tax-rates.ts';

/**
 * The one pricing function: the widget, the checkout, renewals and charge-vaulted all price through
 * `quotePrice`, so a customer is charged exactly what they were shown.
 */
export interface PriceQuote {
  currency: string;
  /** Net price after any discount: what tax is charged on. */
  netMinor: number;
  /** What a coupon took off the net price (0 without one). */
  discountMinor: number;
  taxMinor: number;
  totalMinor: number;
  /** Tax rate as a decimal string, e.g. "0.19". */
  taxRate: string;
  taxName: string;
  netUsdMinor: number;
  /** A US tax from the state's rate alone (no ZIP-level rate known): the checkout says "estimated". Not in API responses. */
  taxEstimated?: boolean;
  /** Seats priced (docs/decisions.md §39), when a quantity was asked for; the net is for all of them. */
  quantity?: number;
}

export interface QuoteRequest {
  /** Net prices in minor units by currency; USD must be present. */
  prices: Readonly<Record<string, number>>;
  /** The currency the customer would pay in; falls back to USD when it cannot be offered. */
  currency: string;
  country: string;
  region?: string | null;
  /** A US ZIP code: with a ZIP-level table (`usSalesTax`) its combined rate replaces the state's. */
  zip?: string | null | undefined;
  usSalesTax?: UsSalesTaxTable | undefined;
  /** EU reverse charge applies (a business buyer with a valid VAT ID, seller elsewhere in the EU): 0%, "Reverse charge". */
  reverseCharge?: boolean | undefined;
  allowConversion: boolean;
  rates: ExchangeRates;
  /** Seats bought (docs/decisions.md §39): `prices` are per seat, the list net is for all of them. Default 1. */
  quantity?: number | undefined;
  /** The net price after a discount, given the list net price in the chosen currency. */
  discount?: ((netMinor: number, currency: string) => number) | undefined;
}

/** The list net price (before any discount and tax) and the currency it is in: the one asked for when it can be offered, else USD. */
export function listPrice(
  request: Pick<QuoteRequest, 'prices' | 'currency' | 'allowConversion' | 'rates' | 'quantity'>,
): {
  currency: string;
  netMinor: number;
} {
  const usd = request.prices.USD;
  if (usd === undefined) throw invalidInput('A USD price is required.');
  const currency = chooseCurrency(request);
  const unit = request.prices[currency] ?? convertFromUsd(usd, currency, request.rates);
  return { currency, netMinor: timesQuantity(unit, request.quantity, currency) };
}

/** A unit price times the seats, exact (BigInt): the unit is converted and rounded once, before multiplying. */
function timesQuantity(unitMinor: number, quantity: number | undefined, currency: string): number {
  if (quantity === undefined || quantity === 1) return unitMinor;
  return safeMinor(
    BigInt(unitMinor) * BigInt(quantity),
    () => `${quantity} seats at ${formatMinor(unitMinor, currency)} ${currency}`,
  );
}

export function quotePrice(request: QuoteRequest): PriceQuote {
  const { currency, netMinor: listNetMinor } = listPrice(request);
  const usd = timesQuantity(request.prices.USD!, request.quantity, 'USD');
  const netMinor = request.discount ? request.discount(listNetMinor, currency) : listNetMinor;
  const tax = request.reverseCharge
    ? REVERSE_CHARGE
    : taxRateFor(request.country, request.region, { zip: request.zip, usSalesTax: request.usSalesTax });
  const taxMinor = multiplyByRate(netMinor, tax.rate);
  // Summed in BigInt: a float sum past 2^53 would round the total the customer pays.
  const totalMinor = safeMinor(
    BigInt(netMinor) + BigInt(taxMinor),
    () => `The total of ${formatMinor(netMinor, currency)} ${currency} with tax`,
  );
  return {
    currency,
    netMinor,
    discountMinor: listNetMinor - netMinor,
    taxMinor,
    totalMinor,
    taxRate: formatDecimal(tax.rate),
    taxName: tax.name,
    netUsdMinor: request.discount ? request.discount(usd, 'USD') : usd,
    ...(tax.estimated ? { taxEstimated: true } : {}),
    ...(request.quantity !== undefined ? { quantity: request.quantity } : {}),
  };
}

/**
 * The unit net prices for `quantity` seats (docs/decisions.md §39): volume pricing, every seat at the
 * tier the total falls in; below the first tier, the product's own prices.
 */
export function seatUnitPrices(
  product: { prices: Record<string, number>; seats?: SeatPricing | null | undefined },
  quantity: number,
  customized = false,
): Record<string, number> {
  // A customized product's prices are the vendor's own deal: one unit price whatever the quantity.
  if (customized || !product.seats) return product.prices;
  let prices = product.prices;
  for (const tier of product.seats.tiers) if (quantity >= tier.fromQuantity) prices = tier.prices;
  return prices;
}

function chooseCurrency(request: Pick<QuoteRequest, 'prices' | 'currency' | 'allowConversion' | 'rates'>): string {
  const wanted = request.currency.toUpperCase();
  if (request.prices[wanted] !== undefined) return wanted;
  if (request.allowConversion && request.rates.perEuro.has(wanted)) return wanted;
  return 'USD';
}

/** USD minor units to `currency` minor units through the EUR-based table, rounded half-up once. */
export function convertFromUsd(usdMinor: number, currency: string, rates: ExchangeRates): number {
  const rate = minorRate('USD', currency, rates);
  if (!rate) throw invalidInput(`No exchange rate for ${currency}; give a ${currency} price or pay in USD.`);
  return safeMinor(
    divideRoundHalfUp(BigInt(usdMinor) * rate.numerator, rate.denominator),
    () => `${formatMinor(usdMinor, 'USD')} USD in ${currency}`,
  );
}
