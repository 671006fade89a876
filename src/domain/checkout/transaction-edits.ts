import { notFound } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import type { SeenLedger } from '../payments/index.ts';
import { requireEmail, requirePayload } from '../validation.ts';
import { lockUnchanged, type TransactionDeps } from './transaction-lookups.ts';

/** A change that moves no money and checks no page's view of the ledger: one statement, no lock read before it. */
async function updated(
  deps: TransactionDeps,
  scope: Scope,
  id: string,
  patch: Pick<Transaction, 'assignedEmail'> | Pick<Transaction, 'payload'>,
): Promise<Transaction> {
  const transaction = await deps.store.transactions.updateReturning(scope, id, patch);
  if (!transaction) throw notFound(`Transaction ${id}`);
  return transaction;
}

/** The e-mail address a vendor assigns a transaction to (its licence's or subscription's user). */
export async function assignEmail(
  deps: TransactionDeps,
  scope: Scope,
  id: string,
  email: string,
  seen?: SeenLedger,
): Promise<Transaction> {
  const assignedEmail = requireEmail(email, 'assignEmail');
  if (seen === undefined) return updated(deps, scope, id, { assignedEmail });
  return deps.store.transaction(async (repos) => {
    const transaction = await lockUnchanged(repos, scope, id, seen);
    await repos.transactions.update(scope, id, { assignedEmail });
    return { ...transaction, assignedEmail };
  });
}

/** The vendor's own data kept on a transaction. */
export async function updatePayload(
  deps: TransactionDeps,
  scope: Scope,
  id: string,
  value: unknown,
  seen?: SeenLedger,
): Promise<Transaction> {
  const payload = requirePayload(value);
  if (seen === undefined) return updated(deps, scope, id, { payload });
  return deps.store.transaction(async (repos) => {
    const transaction = await lockUnchanged(repos, scope, id, seen);
    await repos.transactions.update(scope, id, { payload });
    return { ...transaction, payload };
  });
}
