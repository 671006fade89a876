import { invalidInput } from './errors.ts';
import type { Product, Transaction } from './model.ts';

/** The largest activation limit a product may set (docs/decisions.md §40); above it, no limit is meant. */
export const ACTIVATION_LIMIT_MAX = 10_000;

/** A product's activation limit as the panel, the CLI and the API give it: a whole number from 1, or null for none. */
export function activationLimitField(input: unknown): number | null {
  if (input === null) return null;
  if (typeof input !== 'number' || !Number.isInteger(input) || input < 1 || input > ACTIVATION_LIMIT_MAX)
    throw invalidInput(
      `activationLimit must be a whole number from 1 to ${ACTIVATION_LIMIT_MAX}, or null for no limit.`,
    );
  return input;
}

/**
 * How many instances the licence of `transaction` may be activated on: a per-seat product's purchase
 * gets one per seat it bought, whatever the product's own limit; any other, the product's limit
 * (null: no limit). docs/decisions.md §40.
 */
export function activationLimitOf(
  product: Pick<Product, 'activationLimit' | 'seats'>,
  transaction: Pick<Transaction, 'quantity'>,
): number | null {
  if (product.seats) return transaction.quantity;
  return product.activationLimit;
}
