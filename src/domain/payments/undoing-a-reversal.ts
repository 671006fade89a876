import type { LedgerEntry, Scope, Transaction } from '../model.ts';
import type { Repositories, TransactionPatch } from '../ports.ts';
import { bookedAs, datedAfter, undoEntry } from './reversal-entries.ts';

/** A reversal to undo, under the processor's id of what undoes it. */
export interface UndoRequest {
  scope: Scope;
  transaction: Transaction;
  reversal: LedgerEntry;
  externalId: string;
  at: Date;
}

/**
 * Undoes a reversal: a dispute the vendor won gives the chargeback back, a refund that failed puts
 * the refund back. An entry of the same type and opposite sign, booked once by `externalId`. The
 * status stays (a subscription is not started again, a won dispute restores nothing), except that a
 * one-time purchase whose refund failed is paid again: its money is the vendor's, and may be refunded.
 */
export async function undoReversal(repos: Repositories, request: UndoRequest): Promise<LedgerEntry> {
  const { scope, reversal, transaction } = request;
  const earlier = await bookedAs(repos, transaction.id, request.externalId);
  if (earlier) return earlier;
  const entry = undoEntry(scope, reversal, request.externalId, datedAfter([reversal], request.at));
  await repos.entries.insertReversal(entry);
  // A won dispute leaves the status as it is (DECISIONS.md); a failed refund of a one-time purchase is as if never made.
  const paidAgain =
    reversal.type !== 'CHARGEBACK' &&
    transaction.type === 'ONETIME' &&
    transaction.status === 'TRANSACTION_STATUS_REFUNDED';
  const patch: TransactionPatch = paidAgain ? { status: 'ONE_TIME_PAYMENT_STATUS_PAID' } : {};
  await repos.transactions.update(scope, transaction.id, patch, {
    flag: 'CHANGED_STATUS_REFUNDED',
    at: request.at.toISOString(),
  });
  return entry;
}
