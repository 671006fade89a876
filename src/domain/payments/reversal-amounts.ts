import type { LedgerEntry } from '../model.ts';

/**
 * The arithmetic of taking a payment back in parts (docs/decisions.md §6a): what of a payment is
 * reversed so far, what is left, and what each part of the next reversal is (tax, net, income and the
 * fees). Pure, exact integer arithmetic; the reversal module (reversals.ts) books with it.
 */

/** The money fields of an entry that a reversal takes back in proportion. */
export const SPLIT_FIELDS = [
  'taxMinor',
  'incomeMinor',
  'affiliateIncomeMinor',
  'serviceFeeMinor',
  'transactionFeeMinor',
] as const;
type SplitField = (typeof SPLIT_FIELDS)[number];

export type ReversalAmounts = Pick<LedgerEntry, 'amountTotalMinor' | 'netMinor' | SplitField>;

/**
 * A payment's reversals: the entries that reverse it (refunds, chargebacks) and those that reverse
 * one of them (a dispute won, a refund that failed), in the ledger's order.
 */
export function reversalsOf(entries: readonly LedgerEntry[], payment: LedgerEntry): LedgerEntry[] {
  const direct = new Set(entries.filter((e) => e.reversesEntryId === payment.id).map((e) => e.id));
  return entries.filter((e) => direct.has(e.id) || (e.reversesEntryId !== null && direct.has(e.reversesEntryId)));
}

/** What of the payment is taken back now (0 up to its total), in minor units: the reversals' amounts, their sign turned. */
export function reversedMinor(reversals: readonly Pick<LedgerEntry, 'amountTotalMinor'>[]): number {
  return 0 - reversals.reduce((sum, e) => sum + e.amountTotalMinor, 0);
}

/** `value` × `part` / `whole`, rounded half away from zero, in exact integer arithmetic. */
export function scaled(value: number, part: number, whole: number): number {
  if (whole <= 0) return 0;
  const magnitude = BigInt(Math.abs(value));
  const result = Number((2n * magnitude * BigInt(part) + BigInt(whole)) / (2n * BigInt(whole)));
  return value < 0 ? 0 - result : result;
}

/**
 * The parts of a reversal of `amountMinor` of `payment`, after `reversals`: each field of the payment
 * scaled by how much of it is reversed once this one is, minus what the reversals before took of that
 * field. So every reversal adds up (net + tax = its amount), and a payment reversed in full, in any
 * number of parts, is taken back to the exact minor unit: the reversals sum to minus the payment.
 * Returns the parts with the reversal's sign (negative).
 */
export function nextReversal(
  payment: LedgerEntry,
  reversals: readonly LedgerEntry[],
  amountMinor: number,
): ReversalAmounts {
  const total = payment.amountTotalMinor;
  const before = reversedMinor(reversals);
  const after = before + amountMinor;
  if (amountMinor <= 0 || after > total)
    throw new RangeError(`a reversal of ${amountMinor} after ${before} of ${total} is not a part of the payment`);
  const taken = (field: SplitField) => 0 - reversals.reduce((sum, e) => sum + e[field], 0);
  const part = (field: SplitField) => taken(field) - scaled(payment[field], after, total);
  const taxMinor = part('taxMinor');
  return {
    amountTotalMinor: 0 - amountMinor,
    taxMinor,
    netMinor: 0 - amountMinor - taxMinor,
    incomeMinor: part('incomeMinor'),
    affiliateIncomeMinor: part('affiliateIncomeMinor'),
    serviceFeeMinor: part('serviceFeeMinor'),
    transactionFeeMinor: part('transactionFeeMinor'),
  };
}
