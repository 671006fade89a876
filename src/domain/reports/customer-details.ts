import type { Scope } from '../model.ts';
import type { Store } from '../ports.ts';

/** One customer for the panel's customer page, with their transactions (at most 200); undefined if not the scope's. */
export async function customerDetails(deps: { store: Store }, scope: Scope, id: string) {
  const customer = await deps.store.dashboard.customer(scope, id);
  if (!customer) return undefined;
  const { transactions } = await deps.store.dashboard.searchTransactions(
    scope,
    { customerId: id },
    { limit: 200, offset: 0 },
  );
  return { ...customer, transactions };
}
