import { AppError, invalidInput } from '../errors.ts';
import type { Product, Scope, SeatPricing, SeatTier } from '../model.ts';
import { parsePriceList } from '../money/index.ts';
import type { Repositories } from '../ports.ts';

/**
 * Seats (docs/decisions.md §39): a product sold per seat has a quantity range and optional volume
 * tiers. Volume pricing: every seat costs the price of the tier the total quantity falls in; below
 * the first tier, the product's own prices. A product not sold per seat is bought one at a time.
 */

/** A purchase's quantity that the product does not sell: the checkout marks its seats field. */
export class QuantityRefused extends AppError {
  constructor(message: string) {
    super('INVALID_INPUT', message);
  }
}

/** The most seats one purchase may have: the product's maximum is at most this. */
export const QUANTITY_LIMIT = 100_000;
const TIERS_MAX = 20;

/** As the API, the CLI and the panel give them: prices as [{currency, value}], like a product's. */
export interface SeatPricingInput {
  minQuantity?: unknown;
  maxQuantity?: unknown;
  tiers?: unknown;
}

function wholeNumber(input: unknown, name: string, fallback: number): number {
  if (input === undefined || input === null) return fallback;
  const n = typeof input === 'string' && /^\d+$/.test(input.trim()) ? Number(input) : input;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > QUANTITY_LIMIT)
    throw invalidInput(`${name} must be a whole number from 1 to ${QUANTITY_LIMIT}.`);
  return n;
}

function tierOf(input: unknown, index: number): SeatTier {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidInput(`Seat tier ${index + 1} must be an object {fromQuantity, prices}.`);
  const { fromQuantity, prices, ...rest } = input as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw invalidInput(`Seat tier ${index + 1} has an unknown field ${unknown}.`);
  if (fromQuantity === undefined) throw invalidInput(`Seat tier ${index + 1} needs a fromQuantity.`);
  return {
    fromQuantity: wholeNumber(fromQuantity, `Seat tier ${index + 1}'s fromQuantity`, 1),
    prices: parsePriceList(prices),
  };
}

/**
 * A seat pricing checked against the product's prices: min ≤ max, tiers strictly ascending above the
 * minimum and up to the maximum, each priced in exactly the product's currencies (so a buyer's currency
 * never changes with the quantity). null: the product is sold one per purchase.
 */
export function parseSeatPricing(input: unknown, prices: Record<string, number>): SeatPricing | null {
  if (input === null || input === false) return null;
  if (typeof input !== 'object' || Array.isArray(input))
    throw invalidInput('seats must be an object {minQuantity, maxQuantity, tiers} or null.');
  const { minQuantity, maxQuantity, tiers, ...rest } = input as SeatPricingInput & Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw invalidInput(`seats has an unknown field ${unknown}.`);
  const min = wholeNumber(minQuantity, 'seats.minQuantity', 1);
  const max = wholeNumber(maxQuantity, 'seats.maxQuantity', QUANTITY_LIMIT);
  if (min > max) throw invalidInput('seats.minQuantity must not be above seats.maxQuantity.');
  if (tiers !== undefined && tiers !== null && !Array.isArray(tiers))
    throw invalidInput('seats.tiers must be an array of {fromQuantity, prices}.');
  const list = ((tiers as unknown[] | null | undefined) ?? []).map(tierOf);
  if (list.length > TIERS_MAX) throw invalidInput(`A product has at most ${TIERS_MAX} seat tiers.`);
  checkTiers(list, min, max, prices);
  return { minQuantity: min, maxQuantity: max, tiers: list };
}

/** Tiers start above the minimum, ascend, end by the maximum, and are priced in the product's currencies. */
export function checkTiers(tiers: SeatTier[], min: number, max: number, prices: Record<string, number>): void {
  const currencies = Object.keys(prices).sort().join(', ');
  let last = min;
  for (const tier of tiers) {
    if (tier.fromQuantity <= last)
      throw invalidInput(
        `Seat tiers must start above seats.minQuantity (${min}) and ascend; ${tier.fromQuantity} does not.`,
      );
    if (tier.fromQuantity > max)
      throw invalidInput(`A seat tier from ${tier.fromQuantity} is above seats.maxQuantity (${max}).`);
    if (Object.keys(tier.prices).sort().join(', ') !== currencies)
      throw invalidInput(`Each seat tier is priced in the product's currencies (${currencies}).`);
    last = tier.fromQuantity;
  }
}

/**
 * The quantity of a purchase: none given is the product's minimum (1 when it is not sold per seat);
 * outside the product's range, or more than one of a product not sold per seat, is refused.
 */
export function purchaseQuantity(product: Pick<Product, 'seats'>, input: unknown): number {
  const seats = product.seats ?? null;
  if (input === undefined || input === null || input === '') return seats?.minQuantity ?? 1;
  const n = typeof input === 'string' && /^\s*\d+\s*$/.test(input) ? Number(input) : input;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
    throw new QuantityRefused('quantity must be a whole number of seats, 1 or more.');
  if (!seats) {
    if (n !== 1) throw new QuantityRefused('This product is not sold per seat: its quantity is 1.');
    return 1;
  }
  if (n < seats.minQuantity || n > seats.maxQuantity)
    throw new QuantityRefused(
      `quantity must be from ${seats.minQuantity} to ${seats.maxQuantity} seats for this product.`,
    );
  return n;
}

/**
 * A product update's seats: new ones when given (written), else the current ones, checked again
 * against the new prices (a tier priced in a currency the product dropped, or lacking one it added,
 * is refused: the update asks for new tiers too).
 */
export async function updatedSeats(
  repos: Pick<Repositories, 'products'>,
  scope: Scope,
  current: Product,
  input: unknown,
  prices: Record<string, number>,
): Promise<SeatPricing | null> {
  if (input === undefined) {
    const seats = current.seats ?? null;
    if (seats) checkTiers(seats.tiers, seats.minQuantity, seats.maxQuantity, prices);
    return seats;
  }
  const seats = parseSeatPricing(input, prices);
  await repos.products.setSeats(scope, current.id, seats);
  return seats;
}
