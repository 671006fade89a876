import { notFound } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import { requireUnchanged, type SeenLedger } from '../payments/index.ts';
import type { Clock } from '../clock.ts';
import type { EmailRecorder } from '../notifications/index.ts';
import type { Repositories, Store } from '../ports.ts';

/** Reading transactions, and the changes that move no money: e-mail, payload, cancellation. */
export interface TransactionDeps {
  store: Store;
  clock: Clock;
  /** Queues the customer's cancellation e-mail in the cancel's database transaction. */
  emails?: EmailRecorder | undefined;
}

/** A transaction of this scope, read (or locked for the caller's database transaction); not found: an error. */
export async function mustFind(
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
export async function lockUnchanged(
  repos: Repositories,
  scope: Scope,
  id: string,
  seen: SeenLedger | undefined,
): Promise<Transaction> {
  const transaction = await mustFind(repos, scope, id, true);
  await requireUnchanged(repos, id, seen);
  return transaction;
}
