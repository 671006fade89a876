import type { Clock } from '../clock.ts';
import type { ExchangeRates } from '../money/index.ts';
import type { Scope } from '../model.ts';
import type { Store, TransactionFilter } from '../ports.ts';
import { customerDetails } from './customer-details.ts';
import { overview, type Unit } from './dashboard-overview.ts';
import { transactionDetails } from './transaction-details.ts';

export { bucketsOf, type Overview, type Unit } from './dashboard-overview.ts';
export type { Series } from './revenue.ts';
export { toUsd } from './usd-conversion.ts';

/** What the vendor panel reads: its overview's figures, and its lists of transactions and customers. */
export function dashboardService(deps: { store: Store; clock: Clock; rates: ExchangeRates }) {
  return {
    overview: (scope: Scope, unit: Unit) => overview(deps, scope, unit),
    transactions: (scope: Scope, filter: TransactionFilter, page: { limit: number; offset: number }) =>
      deps.store.dashboard.searchTransactions(scope, filter, page),
    customers: (scope: Scope, query: string | undefined, page: { limit: number; offset: number }) =>
      deps.store.dashboard.customers(scope, query, page),
    customer: (scope: Scope, id: string) => customerDetails(deps, scope, id),
    /** One transaction with its ledger, card and licence key; undefined when it is not the scope's. */
    transaction: (scope: Scope, id: string) => transactionDetails(deps, scope, id),
  };
}

export type DashboardService = ReturnType<typeof dashboardService>;
