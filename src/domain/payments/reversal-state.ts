import { isPayment } from './ledger.ts';
import type { LedgerEntry } from '../model.ts';
import { reversalsOf, reversedMinor } from './reversal-amounts.ts';

/** A payment of a transaction, and what of it is reversed so far. */
export interface ReversalState {
  payment: LedgerEntry;
  reversals: LedgerEntry[];
  reversedMinor: number;
  /** What may still be refunded of it. */
  remainingMinor: number;
}

export function reversalState(entries: readonly LedgerEntry[], payment: LedgerEntry): ReversalState {
  const reversals = reversalsOf(entries, payment);
  const reversed = reversedMinor(reversals);
  return { payment, reversals, reversedMinor: reversed, remainingMinor: payment.amountTotalMinor - reversed };
}

/** The latest payment with something left to refund: what a refund without an amount refunds. */
export function latestRefundable(entries: readonly LedgerEntry[]): ReversalState | undefined {
  for (const entry of [...entries].reverse()) {
    if (!isPayment(entry)) continue;
    const state = reversalState(entries, entry);
    if (state.remainingMinor > 0) return state;
  }
  return undefined;
}
