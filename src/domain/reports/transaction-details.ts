import type { LedgerEntry, PaymentMethod, Scope, Transaction } from '../model.ts';
import type { Store } from '../ports.ts';

/** What the panel shows of one transaction: the row, its ledger, the card it is charged to and its licence key. */
export interface TransactionDetails {
  transaction: Transaction;
  entries: LedgerEntry[];
  paymentMethod: PaymentMethod | null;
  licence: string | null;
}

/** One transaction of the scope with all the panel shows of it; undefined when it is not the scope's. */
export async function transactionDetails(
  deps: { store: Pick<Store, 'transactions' | 'entries' | 'paymentMethods' | 'licences'> },
  scope: Scope,
  id: string,
): Promise<TransactionDetails | undefined> {
  const transaction = await deps.store.transactions.find(scope, id);
  if (!transaction) return undefined;
  // The method and the key are read only through the transaction found in the scope: never another vendor's.
  const [entries, paymentMethod, licence] = await Promise.all([
    deps.store.entries.listForTransaction(transaction.id),
    transaction.paymentMethodId ? deps.store.paymentMethods.find(transaction.paymentMethodId) : undefined,
    deps.store.licences.keyOf(scope, transaction.id),
  ]);
  return { transaction, entries, paymentMethod: paymentMethod ?? null, licence: licence ?? null };
}
