import type { Repositories, Store } from '../domain/ports.ts';
import type { Database, Executor } from './database.ts';
import { credentialsStore, customersStore, paymentMethodsStore, vendorsStore } from './accounts-store.ts';
import { chargeAttemptsStore, idempotencyStore } from './attempts-store.ts';
import { billingStore, sandboxClocksStore } from './billing-store.ts';
import { customizedProductsStore, productsStore } from './catalog-store.ts';
import { couponsStore } from './coupons-store.ts';
import { dashboardStore } from './dashboard-store.ts';
import { feedStore } from './feed-store.ts';
import { panelFlashesStore, panelStore } from './panel-store.ts';
import { adminSessionsStore } from './admin-sessions-store.ts';
import { entriesStore, licencesStore } from './ledger-store.ts';
import { processorEventsStore } from './processor-events-store.ts';
import { transactionsStore } from './transactions-store.ts';

/**
 * `readRows` only for the store's own reads: a transaction's must go through its connection. Each
 * repository is made when first used: a database transaction makes a set of them and uses two or three.
 */
function repositories(db: Executor, dialect: Database['dialect'], readRows?: Database['readRows']): Repositories {
  const make: { [K in keyof Repositories]: () => Repositories[K] } = {
    vendors: () => vendorsStore(db),
    credentials: () => credentialsStore(db),
    products: () => productsStore(db),
    customizedProducts: () => customizedProductsStore(db),
    coupons: () => couponsStore(db),
    customers: () => customersStore(db),
    paymentMethods: () => paymentMethodsStore(db),
    transactions: () => transactionsStore(db, dialect, readRows),
    entries: () => entriesStore(db, dialect, readRows),
    licences: () => licencesStore(db),
    feed: () => feedStore(db),
    chargeAttempts: () => chargeAttemptsStore(db),
    idempotency: () => idempotencyStore(db),
    billing: () => billingStore(db, dialect),
    sandboxClocks: () => sandboxClocksStore(db),
    panel: () => panelStore(db),
    panelFlashes: () => panelFlashesStore(db),
    adminSessions: () => adminSessionsStore(db),
    processorEvents: () => processorEventsStore(db),
    dashboard: () => dashboardStore(db),
  };
  const repos = {} as Repositories;
  for (const name of Object.keys(make) as (keyof Repositories)[]) {
    Object.defineProperty(repos, name, {
      enumerable: true,
      get() {
        const made = make[name]();
        Object.defineProperty(repos, name, { value: made, enumerable: true });
        return made;
      },
      configurable: true,
    });
  }
  return repos;
}

/** The domain's Store over one database: plain calls autocommit, `transaction` groups them. */
export function createStore(database: Database): Store {
  return {
    ...repositories(database.kysely, database.dialect, database.readRows),
    transaction: (fn) => database.transaction((trx) => fn(repositories(trx, database.dialect))),
  };
}
