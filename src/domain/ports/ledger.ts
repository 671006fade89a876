import type { ChangeFlag, Environment, LedgerEntry, Scope, Transaction } from '../model.ts';

// Transactions, their ledger entries and the changed-transactions feed.

export type TransactionPatch = Partial<
  Pick<
    Transaction,
    | 'status'
    | 'assignedEmail'
    | 'payload'
    | 'whoCanceled'
    | 'lastCharge'
    | 'nextCharge'
    | 'paymentMethodId'
    // What the customer changes in the portal (docs/decisions.md §34): the reason, the billing details and the tax they decide.
    | 'cancelReason'
    | 'buyerName'
    | 'businessName'
    | 'buyerAddress'
    | 'buyerVatId'
    | 'reverseCharge'
    | 'taxMinor'
    | 'taxRate'
    | 'taxName'
  >
>;

export interface TransactionRepository {
  insert(transaction: Transaction): Promise<void>;
  find(scope: Scope, id: string): Promise<Transaction | undefined>;
  /** Reads the row and locks it until the surrounding database transaction ends. */
  lock(scope: Scope, id: string): Promise<Transaction | undefined>;
  listByEmail(scope: Scope, email: string): Promise<Transaction[]>;
  /** The vendor's latest transactions, newest first. */
  recent(scope: Scope, limit: number): Promise<Transaction[]>;
  /** Applies the patch; with a change flag, the transaction (re-)enters the changed feed. */
  update(scope: Scope, id: string, patch: TransactionPatch, change?: { flag: ChangeFlag; at: string }): Promise<void>;
  /** A patch that moves no money, in one statement: the row as it is after it, or undefined when it is not the vendor's. */
  updateReturning(scope: Scope, id: string, patch: TransactionPatch): Promise<Transaction | undefined>;
}

export interface EntryRepository {
  /** A payment (a reversal goes through `insertReversal`). */
  insert(
    entry: LedgerEntry & { vendorId: string; environment: Environment; description: string | null },
  ): Promise<void>;
  /**
   * A reversal of a payment, or of one of its reversals (a dispute won, a refund failed), or a few of
   * one payment's, the first reversing something already booked: refused, under a lock of the
   * payment's row, if the payment would then be reversed by more than it was or by less than nothing
   * (src/domain/payments/reversals.ts). Must run in a database transaction, which a refusal rolls back.
   */
  insertReversal(
    ...entries: (LedgerEntry & { vendorId: string; environment: Environment; description: string | null })[]
  ): Promise<void>;
  listForTransaction(transactionId: string): Promise<LedgerEntry[]>;
  /** The entry behind an invoice link, with the vendor it belongs to. */
  findByHash(environment: Environment, hashId: string): Promise<(LedgerEntry & { vendorId: string }) | undefined>;
  /** The transaction's entry that keeps this processor id (a payment's, a refund's, a dispute's), if any. */
  findByExternalId(transactionId: string, externalId: string): Promise<LedgerEntry | undefined>;
  /** The environment's entries of the processor `provider` booked in [from, to) that keep its id, oldest first (for reconciliation). */
  referencedIn(filter: ReferenceFilter & { from: string; to: string }): Promise<ReferencedEntry[]>;
  /** The environment's entries of the processor `provider` that keep one of these ids, whenever they were booked. */
  withReferences(filter: ReferenceFilter, references: readonly string[]): Promise<ReferencedEntry[]>;
}

export interface ReferenceFilter {
  environment: Environment;
  /** The gateway's provider, as entries keep it (`STRIPE`). */
  provider: string;
}

/** An entry as reconciliation with the processor reads it: the processor's id it keeps, its amount and fee. */
export interface ReferencedEntry {
  entryId: string;
  transactionId: string;
  vendorId: string;
  type: LedgerEntry['type'];
  createdAt: string;
  reference: string;
  currency: string;
  amountMinor: number;
  /** The processor's fee as booked (a payment's as the processor charged it; a reversal's, its share given back). */
  feeMinor: number;
}

export interface FeedRepository {
  /** Pending changes, oldest first; records what was shown so marking cannot drop a later change. */
  list(scope: Scope, limit: number): Promise<{ transactions: Transaction[]; more: boolean }>;
  /** Returns false when the transaction is not the vendor's. */
  markProcessed(scope: Scope, id: string): Promise<boolean>;
}
