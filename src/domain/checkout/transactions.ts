import type { Clock } from '../clock.ts';
import { AppError, invalidState, notFound } from '../errors.ts';
import type { LedgerEntry, Scope, Transaction, WhoCanceled } from '../model.ts';
import type { Repositories, Store } from '../ports.ts';
import { requireUnchanged, type SeenLedger } from '../payments/index.ts';
import { requireEmail, requirePayload } from '../validation.ts';
import type { EmailRecorder } from '../notifications/index.ts';

/** Reading transactions, and the changes that move no money: e-mail, payload, cancellation. */
export interface TransactionDeps {
  store: Store;
  clock: Clock;
  /** Queues the customer's cancellation e-mail in the cancel's database transaction. */
  emails?: EmailRecorder | undefined;
}

export type CancelOutcome = { transaction: Transaction; changed: boolean };

export function transactionService(deps: TransactionDeps) {
  async function mustFind(
    repos: Pick<Repositories, 'transactions'>,
    scope: Scope,
    id: string,
    lock = false,
  ): Promise<Transaction> {
    const found = lock ? await repos.transactions.lock(scope, id) : await repos.transactions.find(scope, id);
    if (!found) throw notFound(`Transaction ${id}`);
    return found;
  }

  /** Locks the row, then refuses if its ledger moved since the caller's page showed it. */
  async function lockUnchanged(
    repos: Repositories,
    scope: Scope,
    id: string,
    seen: SeenLedger | undefined,
  ): Promise<Transaction> {
    const transaction = await mustFind(repos, scope, id, true);
    await requireUnchanged(repos, id, seen);
    return transaction;
  }

  /** A change that moves no money and checks no page's view of the ledger: one statement, no lock read before it. */
  async function updated(
    scope: Scope,
    id: string,
    patch: Pick<Transaction, 'assignedEmail'> | Pick<Transaction, 'payload'>,
  ): Promise<Transaction> {
    const transaction = await deps.store.transactions.updateReturning(scope, id, patch);
    if (!transaction) throw notFound(`Transaction ${id}`);
    return transaction;
  }

  return {
    listByEmail(scope: Scope, email: string): Promise<Transaction[]> {
      return deps.store.transactions.listByEmail(scope, requireEmail(email));
    },

    /** What a vendor types into a search box: a transaction ID, an e-mail, or nothing for the latest. */
    async search(scope: Scope, query: string, limit = 50): Promise<{ transactions: Transaction[]; error?: string }> {
      const q = query.trim();
      if (!q) return { transactions: await deps.store.transactions.recent(scope, limit) };
      if (/^TC-TR_[0-9A-Z]+$/i.test(q)) {
        const found = await deps.store.transactions.find(scope, q.toUpperCase());
        return { transactions: found ? [found] : [] };
      }
      try {
        return { transactions: await deps.store.transactions.listByEmail(scope, requireEmail(q)) };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return { transactions: [], error: 'Search by a whole e-mail address or a transaction ID (TC-TR_…).' };
      }
    },

    /** The changed-transactions feed (docs/decisions.md, the feed): oldest change first. */
    listChanged: (scope: Scope, limit: number) => deps.store.feed.list(scope, limit),

    async markProcessed(scope: Scope, id: string): Promise<void> {
      if (!(await deps.store.feed.markProcessed(scope, id))) throw notFound(`Transaction ${id}`);
    },

    async get(scope: Scope, id: string): Promise<{ transaction: Transaction; entries: LedgerEntry[] }> {
      const transaction = await mustFind(deps.store, scope, id);
      return { transaction, entries: await deps.store.entries.listForTransaction(id) };
    },

    async assignEmail(scope: Scope, id: string, email: string, seen?: SeenLedger): Promise<Transaction> {
      const assignedEmail = requireEmail(email, 'assignEmail');
      if (seen === undefined) return updated(scope, id, { assignedEmail });
      return deps.store.transaction(async (repos) => {
        const transaction = await lockUnchanged(repos, scope, id, seen);
        await repos.transactions.update(scope, id, { assignedEmail });
        return { ...transaction, assignedEmail };
      });
    },

    async updatePayload(scope: Scope, id: string, value: unknown, seen?: SeenLedger): Promise<Transaction> {
      const payload = requirePayload(value);
      if (seen === undefined) return updated(scope, id, { payload });
      return deps.store.transaction(async (repos) => {
        const transaction = await lockUnchanged(repos, scope, id, seen);
        await repos.transactions.update(scope, id, { payload });
        return { ...transaction, payload };
      });
    },

    /**
     * Subscription: cancelled at the end of the paid period (CANCELLED_PENDING), or at once in a
     * trial. Vaulted: deactivated. Already ended: nothing changes, and that is not an error.
     */
    async cancel(scope: Scope, id: string, who: WhoCanceled, seen?: SeenLedger): Promise<CancelOutcome> {
      return deps.store.transaction(async (repos) => {
        const transaction = await lockUnchanged(repos, scope, id, seen);
        const at = deps.clock.now(scope).toISOString();
        if (transaction.type === 'ONETIME') {
          throw invalidState(
            `A one-time payment cannot be cancelled (status ${transaction.status}); refund it instead.`,
          );
        }
        const ended: Transaction['status'][] = [
          'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
          'SUBSCRIPTION_STATUS_CANCELLED',
          'VAULTED_STATUS_INACTIVE',
          'TRANSACTION_STATUS_REFUNDED',
        ];
        if (ended.includes(transaction.status)) return { transaction, changed: false };
        if (transaction.status === 'TRANSACTION_STATUS_PENDING') {
          throw invalidState(`Transaction ${id} is pending payment and cannot be cancelled yet.`);
        }
        let patch: Partial<Transaction>;
        if (transaction.type === 'VAULTED') {
          patch = { status: 'VAULTED_STATUS_INACTIVE', whoCanceled: who };
          await repos.transactions.update(scope, id, patch, { flag: 'CHANGED_STATUS_VAULTED_DEACTIVATION', at });
          return {
            transaction: { ...transaction, ...patch, changeFlag: 'CHANGED_STATUS_VAULTED_DEACTIVATION' },
            changed: true,
          };
        }
        patch =
          transaction.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL'
            ? { status: 'SUBSCRIPTION_STATUS_CANCELLED', whoCanceled: who, nextCharge: null }
            : { status: 'SUBSCRIPTION_STATUS_CANCELLED_PENDING', whoCanceled: who };
        await repos.transactions.update(scope, id, patch, { flag: 'CHANGED_STATUS_CANCELLED', at });
        // Access ends with the paid period; a trial ends now.
        const accessEnds = patch.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' ? transaction.nextCharge : null;
        await deps.emails?.record(repos, [
          { kind: 'CANCELLED', scope, key: `CANCELLED:${id}`, facts: { transactionId: id, date: accessEnds } },
        ]);
        return { transaction: { ...transaction, ...patch, changeFlag: 'CHANGED_STATUS_CANCELLED' }, changed: true };
      });
    },
  };
}

export type TransactionService = ReturnType<typeof transactionService>;
