import type { EmailRecorder } from '../notifications/index.ts';
import type { EmailEvent } from '../notifications/index.ts';
import { isoString } from '../clock.ts';
import { invalidState } from '../errors.ts';
import { newId } from '../ids.ts';
import { isPayment, type NewEntry } from './ledger.ts';
import type { EntryType, LedgerEntry, Scope, Transaction } from '../model.ts';
import type { Repositories, TransactionPatch } from '../ports.ts';
import { nextReversal, reversalsOf, reversedMinor } from './reversal-amounts.ts';

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

export type ReversalKind = 'REFUND' | 'CHARGEBACK';

/** The ledger type of a refund of a transaction's payment. */
const REFUND_TYPE: Record<Transaction['type'], EntryType> = {
  ONETIME: 'ONETIME_PAYMENT_REFUND',
  SUBSCRIPTION: 'SUBSCRIPTION_REFUND',
  // The spec's entry types have no vaulted refund; a vaulted charge is refunded like a one-time payment.
  VAULTED: 'ONETIME_PAYMENT_REFUND',
};

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

/** What is asked to be reversed: `amountMinor` of `payment`, as a refund or a chargeback. */
export interface ReversalRequest {
  scope: Scope;
  /** The transaction as locked by the caller. */
  transaction: Transaction;
  payment: LedgerEntry;
  kind: ReversalKind;
  amountMinor: number;
  /** The processor's id of the refund or dispute: one booking per id. */
  externalId: string | null;
  at: Date;
  /** Why, as the vendor wrote it (a refund asked through opentill). */
  reason?: string | null | undefined;
  /** The entry's ids, chosen when the refund was asked, so its answer names what is booked. */
  ids?: { id: string; hashId: string } | undefined;
}

export interface ReversalDeps {
  /** Queues the customer's refund e-mail in the same database transaction. */
  emails?: Pick<EmailRecorder, 'record'> | undefined;
}

/** `at`, or just after the latest of `entries`: a reversal comes after what it reverses in the ledger's order, even within a millisecond. */
const after = (entries: readonly LedgerEntry[], at: Date): Date =>
  new Date(Math.max(at.getTime(), ...entries.map((e) => Date.parse(e.createdAt) + 1)));

export function reversalService(deps: ReversalDeps) {
  /** The entry booked earlier under a processor's id, if any: a replayed event books nothing more. */
  const bookedAs = (repos: Repositories, transactionId: string, externalId: string | null) =>
    externalId ? repos.entries.findByExternalId(transactionId, externalId) : Promise.resolve(undefined);

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
      transaction.type === 'ONETIME' ? {} : { whoCanceled: transaction.whoCanceled ?? 'TRANSACTION_CLOUD_ADMIN' };
    if (fully) return { ...patch, status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
    if (transaction.type === 'SUBSCRIPTION')
      return { ...patch, status: 'SUBSCRIPTION_STATUS_CANCELLED', nextCharge: null };
    if (transaction.type === 'VAULTED') return { ...patch, status: 'VAULTED_STATUS_INACTIVE' };
    return patch;
  }

  return {
    /**
     * Books a reversal of part or all of a payment; an id booked before is that booking. Refused
     * (INVALID_STATE) when the amount is more than is left of the payment. `wonAs`: a dispute already
     * won when first heard of, booked with its win under that id: the two net to nothing, so they need
     * only fit the payment, whatever was refunded meanwhile.
     */
    async reverse(
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
        after([payment, ...state.reversals], request.at),
      );
      const undone = wonAs ? undoEntry(scope, entry, wonAs, after([entry], request.at)) : undefined;
      await repos.entries.insertReversal(entry, ...(undone ? [undone] : []));
      const fully = state.reversedMinor + request.amountMinor >= payment.amountTotalMinor;
      const latest = [...entries].reverse().find(isPayment)?.id === payment.id;
      // The change (and a cancellation) is dated when it happened; only the ledger's order needs `after`.
      const change = { flag: 'CHANGED_STATUS_REFUNDED', at: request.at.toISOString() } as const;
      await repos.transactions.update(scope, transaction.id, patchFor(request, fully, latest), change);
      if (request.kind === 'REFUND') await deps.emails?.record(repos, [refundEmail(scope, transaction.id, entry.id)]);
      return { entry, booked: true };
    },

    /**
     * Undoes a reversal: a dispute the vendor won gives the chargeback back, a refund that failed puts
     * the refund back. An entry of the same type and opposite sign, booked once by `externalId`. The
     * status stays (a subscription is not started again, a won dispute restores nothing), except that a
     * one-time purchase whose refund failed is paid again: its money is the vendor's, and may be refunded.
     */
    async undo(
      repos: Repositories,
      request: { scope: Scope; transaction: Transaction; reversal: LedgerEntry; externalId: string; at: Date },
    ): Promise<LedgerEntry> {
      const { scope, reversal, transaction } = request;
      const earlier = await bookedAs(repos, transaction.id, request.externalId);
      if (earlier) return earlier;
      const entry = undoEntry(scope, reversal, request.externalId, after([reversal], request.at));
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
    },
  };
}

/** The entry of a reversal of part of a payment, its split continuing `before`'s (the payment's reversals so far). */
function reversalEntry(request: ReversalRequest, before: readonly LedgerEntry[], at: Date): NewEntry {
  const { scope, transaction, payment } = request;
  return {
    ...payment,
    ...nextReversal(payment, before, request.amountMinor),
    id: request.ids?.id ?? newId('entry', at.getTime()),
    hashId: request.ids?.hashId ?? newId('hash', at.getTime()),
    vendorId: scope.vendorId,
    environment: scope.environment,
    type: request.kind === 'REFUND' ? REFUND_TYPE[transaction.type] : 'CHARGEBACK',
    createdAt: isoString(at),
    reversesEntryId: payment.id,
    periodStart: null,
    externalId: request.externalId,
    description: request.reason ?? null,
    invoiceNumber: null,
  };
}

/** The entry that undoes a reversal: its type, every amount of the opposite sign. */
function undoEntry(scope: Scope, reversal: LedgerEntry, externalId: string, at: Date): NewEntry {
  return {
    ...reversal,
    id: newId('entry', at.getTime()),
    hashId: newId('hash', at.getTime()),
    vendorId: scope.vendorId,
    environment: scope.environment,
    createdAt: isoString(at),
    amountTotalMinor: -reversal.amountTotalMinor,
    taxMinor: -reversal.taxMinor,
    netMinor: -reversal.netMinor,
    incomeMinor: -reversal.incomeMinor,
    affiliateIncomeMinor: -reversal.affiliateIncomeMinor,
    serviceFeeMinor: -reversal.serviceFeeMinor,
    transactionFeeMinor: -reversal.transactionFeeMinor,
    reversesEntryId: reversal.id,
    externalId,
    description: null,
    invoiceNumber: null,
  };
}

export type ReversalService = ReturnType<typeof reversalService>;

/** The customer's e-mail about a refund: one per refund entry, however the refund was made. */
export const refundEmail = (scope: Scope, transactionId: string, entryId: string): EmailEvent => ({
  kind: 'REFUNDED',
  scope,
  key: `REFUNDED:${entryId}`,
  facts: { transactionId, entryId },
});
