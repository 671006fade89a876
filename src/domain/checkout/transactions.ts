import { pauseService } from '../billing/index.ts';
import { notFound } from '../errors.ts';
import type { LedgerEntry, PaymentMethod, Scope, Transaction, WhoCanceled } from '../model.ts';
import type { SeenLedger } from '../payments/index.ts';
import { requireEmail } from '../validation.ts';
import { cancelTransaction, type CancelChoice, type CancelOutcome } from './cancellations.ts';
import { assignEmail, updatePayload } from './transaction-edits.ts';
import { mustFind, type TransactionDeps } from './transaction-lookups.ts';
import { searchTransactions } from './transaction-search.ts';

// The service's public names, where they have always been imported from.
export type { CancelChoice, CancelOutcome } from './cancellations.ts';
export type { TransactionDeps } from './transaction-lookups.ts';

/** Reading transactions, and the changes that move no money (see TransactionDeps); each use case has its file. */
export function transactionService(deps: TransactionDeps) {
  return {
    listByEmail(scope: Scope, email: string): Promise<Transaction[]> {
      return deps.store.transactions.listByEmail(scope, requireEmail(email));
    },

    /** What a vendor types into a search box: a transaction ID, an e-mail, or nothing for the latest. */
    search: (scope: Scope, query: string, limit?: number): Promise<{ transactions: Transaction[]; error?: string }> =>
      searchTransactions(deps, scope, query, limit),

    /** The changed-transactions feed (docs/decisions.md, the feed): oldest change first. */
    listChanged: (scope: Scope, limit: number) => deps.store.feed.list(scope, limit),

    async markProcessed(scope: Scope, id: string): Promise<void> {
      if (!(await deps.store.feed.markProcessed(scope, id))) throw notFound(`Transaction ${id}`);
    },

    async get(scope: Scope, id: string): Promise<{ transaction: Transaction; entries: LedgerEntry[] }> {
      const transaction = await mustFind(deps.store, scope, id);
      return { transaction, entries: await deps.store.entries.listForTransaction(id) };
    },

    /**
     * The ledger of a transaction the caller has just read in its scope (a purchase's result): its
     * entries only, without reading the transaction again as `get` would.
     */
    ledgerOf: (transaction: Transaction): Promise<LedgerEntry[]> =>
      deps.store.entries.listForTransaction(transaction.id),

    /** The payment method a transaction the caller has just read was paid with or keeps; null when none (a free purchase). */
    methodOf: async (transaction: Transaction): Promise<PaymentMethod | null> =>
      transaction.paymentMethodId
        ? ((await deps.store.paymentMethods.find(transaction.paymentMethodId)) ?? null)
        : null,

    assignEmail: (scope: Scope, id: string, email: string, seen?: SeenLedger): Promise<Transaction> =>
      assignEmail(deps, scope, id, email, seen),

    updatePayload: (scope: Scope, id: string, value: unknown, seen?: SeenLedger): Promise<Transaction> =>
      updatePayload(deps, scope, id, value, seen),

    /**
     * Subscription: cancelled at the end of the paid period (CANCELLED_PENDING), or at once in a
     * trial or when the customer chose now. Vaulted: deactivated. Already ended: nothing changes, and
     * that is not an error. The customer's reason is kept (`cancelReason`).
     */
    cancel: (
      scope: Scope,
      id: string,
      who: WhoCanceled,
      seen?: SeenLedger,
      choice?: CancelChoice,
    ): Promise<CancelOutcome> => cancelTransaction(deps, scope, id, who, seen, choice),

    /** Pausing and resuming subscriptions (docs/decisions.md §41). */
    pauses: pauseService(deps),
  };
}

export type TransactionService = ReturnType<typeof transactionService>;
