import type { EmailEvent, EmailRecorder } from '../notifications/index.ts';
import { invalidState } from '../errors.ts';
import { isPayment } from './ledger.ts';
import type { LedgerEntry, Scope } from '../model.ts';
import type { Repositories, TransactionPatch } from '../ports.ts';
import { bookedAs, datedAfter, reversalEntry, undoEntry, type ReversalRequest } from './reversal-entries.ts';
import { reversalState } from './reversal-state.ts';

export interface ReversalDeps {
  /** Queues the customer's refund e-mail in the same database transaction. */
  emails?: Pick<EmailRecorder, 'record'> | undefined;
}

/** What a reversal does to its transaction: always a change the vendor sees; the status once it took the payment back. */
function patchFor(request: ReversalRequest, fully: boolean, latest: boolean): TransactionPatch {
  const { transaction } = request;
  if (request.kind === 'REFUND') {
    // A vaulted method stays usable after one of its charges is refunded; a part refunded changes no status.
    if (!fully || !latest || transaction.type === 'VAULTED') return {};
    return { status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
  }
  // A chargeback: the customer disputed; a subscription or a stored method is stopped by the platform.
  const patch: TransactionPatch =
    transaction.type === 'ONETIME'
      ? {}
      : { whoCanceled: transaction.whoCanceled ?? request.by ?? 'TRANSACTION_CLOUD_ADMIN' };
  if (fully) return { ...patch, status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
  if (transaction.type === 'SUBSCRIPTION')
    return { ...patch, status: 'SUBSCRIPTION_STATUS_CANCELLED', nextCharge: null };
  if (transaction.type === 'VAULTED') return { ...patch, status: 'VAULTED_STATUS_INACTIVE' };
  return patch;
}

/**
 * Books a reversal of part or all of a payment; an id booked before is that booking. Refused
 * (INVALID_STATE) when the amount is more than is left of the payment. `wonAs`: a dispute already
 * won when first heard of, booked with its win under that id: the two net to nothing, so they need
 * only fit the payment, whatever was refunded meanwhile.
 */
export async function reversePayment(
  deps: ReversalDeps,
  repos: Repositories,
  request: ReversalRequest,
  wonAs?: string,
): Promise<{ entry: LedgerEntry; booked: boolean }> {
  const { scope, transaction, payment } = request;
  const earlier = await bookedAs(repos, transaction.id, request.externalId);
  if (earlier) return { entry: earlier, booked: false };
  const entries = await repos.entries.listForTransaction(transaction.id);
  const state = reversalState(entries, payment);
  const room = wonAs ? payment.amountTotalMinor : state.remainingMinor;
  if (request.amountMinor <= 0 || request.amountMinor > room) {
    throw invalidState(
      `${request.amountMinor} is not a part of payment ${payment.id} that can be taken back: ${state.remainingMinor} of ${payment.amountTotalMinor} (minor units of ${payment.currency}) is left.`,
    );
  }
  const entry = reversalEntry(
    request,
    wonAs ? [] : state.reversals,
    datedAfter([payment, ...state.reversals], request.at),
  );
  const undone = wonAs ? undoEntry(scope, entry, wonAs, datedAfter([entry], request.at)) : undefined;
  await repos.entries.insertReversal(entry, ...(undone ? [undone] : []));
  const fully = state.reversedMinor + request.amountMinor >= payment.amountTotalMinor;
  const latest = [...entries].reverse().find(isPayment)?.id === payment.id;
  // The change (and a cancellation) is dated when it happened; only the ledger's order needs `datedAfter`.
  const change = { flag: 'CHANGED_STATUS_REFUNDED', at: request.at.toISOString() } as const;
  await repos.transactions.update(scope, transaction.id, patchFor(request, fully, latest), change);
  if (request.kind === 'REFUND') await deps.emails?.record(repos, [refundEmail(scope, transaction.id, entry.id)]);
  return { entry, booked: true };
}

/** The customer's e-mail about a refund: one per refund entry, however the refund was made. */
export const refundEmail = (scope: Scope, transactionId: string, entryId: string): EmailEvent => ({
  kind: 'REFUNDED',
  scope,
  key: `REFUNDED:${entryId}`,
  facts: { transactionId, entryId },
});
