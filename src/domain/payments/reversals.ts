import type { LedgerEntry } from '../model.ts';
import type { Repositories } from '../ports.ts';
import type { ReversalRequest } from './reversal-entries.ts';
import { reversePayment, type ReversalDeps } from './reversing-a-payment.ts';
import { undoReversal, type UndoRequest } from './undoing-a-reversal.ts';

// The reversal module's parts, where callers have always found them.
export type { ReversalKind, ReversalRequest } from './reversal-entries.ts';
export { latestRefundable, reversalState, type ReversalState } from './reversal-state.ts';
export { refundEmail, type ReversalDeps } from './reversing-a-payment.ts';

/**
 * Every reversal of a payment is booked here (docs/decisions.md §6a): a refund asked through opentill
 * (API, panel, admin tool) or made at the processor (its dashboard, another integration), a dispute
 * the processor opened, and the undoing of either: a dispute won, a refund that failed. A payment may
 * be reversed in any number of parts, in any order, never beyond what it was: the store refuses a
 * reversal past the payment under a lock of the payment's row (`entries.insertReversal`), and each
 * processor id is booked once. Each reversal's tax, net, income and fees are the payment's, taken in
 * proportion to the amount with exact integers (reversal-amounts.ts), so a payment reversed in full
 * nets to exactly zero. Everything here runs in the caller's database transaction, with the
 * transaction's row locked.
 */
export function reversalService(deps: ReversalDeps) {
  return {
    /** Books a reversal of part or all of a payment, once per processor id (reversePayment). */
    reverse(
      repos: Repositories,
      request: ReversalRequest,
      wonAs?: string,
    ): Promise<{ entry: LedgerEntry; booked: boolean }> {
      return reversePayment(deps, repos, request, wonAs);
    },
    /** Undoes a reversal: a dispute won, a refund that failed (undoReversal). */
    undo(repos: Repositories, request: UndoRequest): Promise<LedgerEntry> {
      return undoReversal(repos, request);
    },
  };
}

export type ReversalService = ReturnType<typeof reversalService>;
