import { notFound } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';

/** The customer's transaction: theirs by its e-mail or the one it was assigned to; anyone else's is "not found". */
export async function ownTransaction(
  deps: Pick<PortalDeps, 'store'>,
  scope: Scope,
  email: string,
  id: string,
): Promise<Transaction> {
  const transaction = await deps.store.transactions.find(scope, id);
  const owner = [transaction?.email, transaction?.assignedEmail].filter(Boolean).map((e) => e!.toLowerCase());
  if (!transaction || !owner.includes(email.toLowerCase())) throw notFound(`Transaction ${id}`);
  return transaction;
}
