import { AppError } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import { requireEmail } from '../validation.ts';
import type { TransactionDeps } from './transaction-lookups.ts';

/** What a vendor types into a search box: a transaction ID, an e-mail, or nothing for the latest. */
export async function searchTransactions(
  deps: TransactionDeps,
  scope: Scope,
  query: string,
  limit = 50,
): Promise<{ transactions: Transaction[]; error?: string }> {
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
}
