import { isoString } from '../clock.ts';
import { newId } from '../ids.ts';
import type { NewEntry } from './ledger.ts';
import type { EntryType, LedgerEntry, Scope, Transaction } from '../model.ts';
import type { Repositories } from '../ports.ts';
import { nextReversal } from './reversal-amounts.ts';

/** The ledger entries a reversal books, and its undoing: their amounts, types, ids and dates. */

export type ReversalKind = 'REFUND' | 'CHARGEBACK';

/** The ledger type of a refund of a transaction's payment. */
const REFUND_TYPE: Record<Transaction['type'], EntryType> = {
  ONETIME: 'ONETIME_PAYMENT_REFUND',
  SUBSCRIPTION: 'SUBSCRIPTION_REFUND',
  // The spec's entry types have no vaulted refund; a vaulted charge is refunded like a one-time payment.
  VAULTED: 'ONETIME_PAYMENT_REFUND',
};

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
  /** Who stops a subscription or stored method a chargeback ends: the platform, unless a wallet or bank decided it (§37). */
  by?: 'WALLET_PROVIDER' | undefined;
}

/** `at`, or just after the latest of `entries`: a reversal comes after what it reverses in the ledger's order, even within a millisecond. */
export const datedAfter = (entries: readonly LedgerEntry[], at: Date): Date =>
  new Date(Math.max(at.getTime(), ...entries.map((e) => Date.parse(e.createdAt) + 1)));

/** The entry booked earlier under a processor's id, if any: a replayed event books nothing more. */
export const bookedAs = (repos: Repositories, transactionId: string, externalId: string | null) =>
  externalId ? repos.entries.findByExternalId(transactionId, externalId) : Promise.resolve(undefined);

/** The entry of a reversal of part of a payment, its split continuing `before`'s (the payment's reversals so far). */
export function reversalEntry(request: ReversalRequest, before: readonly LedgerEntry[], at: Date): NewEntry {
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
export function undoEntry(scope: Scope, reversal: LedgerEntry, externalId: string, at: Date): NewEntry {
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
