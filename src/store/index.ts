import type { Repositories, Store } from '../domain/ports.ts';
import type { Database, DialectName, Executor, ReadRows } from './database.ts';
import { credentialsStore, customersStore, paymentMethodsStore, vendorsStore } from './accounts-store.ts';
import { chargeAttemptsStore, idempotencyStore } from './attempts-store.ts';
import { billingStore } from './billing-store.ts';
import { sandboxClocksStore } from './sandbox-clocks-store.ts';
import { customizedProductsStore, productsStore } from './catalog-store.ts';
import { customerEmailsStore } from './customer-emails-store.ts';
import { couponsStore } from './coupons-store.ts';
import { dashboardStore } from './dashboard-store.ts';
import { feedStore } from './feed-store.ts';
import { panelFlashesStore, panelStore } from './panel-store.ts';
import { adminSessionsStore } from './admin-sessions-store.ts';
import { entriesStore, licencesStore } from './ledger-store.ts';
import { operationsStore } from './operations-store.ts';
import { operatorsStore } from './operators-store.ts';
import { processorEventsStore } from './processor-events-store.ts';
import { transactionsStore } from './transactions-store.ts';
import { payoutsStore } from './payouts-store.ts';
import { taxesStore } from './taxes-store.ts';
import { webhooksStore } from './webhooks-store.ts';
import { portalStore } from './portal-store.ts';
import { licenceActivationsStore } from './licence-activations-store.ts';
import { productImagesStore } from './product-images-store.ts';
import { pausesStore } from './pauses-store.ts';
import {
  enqueueChanges,
  newChangeLog,
  notingBilling,
  notingEntries,
  notingTransactions,
  type ChangeLog,
} from './webhook-outbox.ts';

interface Connection {
  db: Executor;
  dialect: DialectName;
  /** Runs compiled reads past Kysely: the reading connection, or a transaction's own (Database.transaction). */
  reads: ReadRows | undefined;
  /** Runs compiled writes past Kysely: a transaction's own connection, where the store has it. */
  writes: ReadRows | undefined;
  /** A database transaction's changes, for the webhook outbox written before it commits (webhook-outbox.ts). */
  changes: ChangeLog | undefined;
}

/** Outside a transaction, a change's events are written right after it. */
const flushOf = (db: Executor) => (log: ChangeLog) => enqueueChanges(db, log);

const MAKE: { [K in keyof Repositories]: (c: Connection) => Repositories[K] } = {
  vendors: ({ db }) => vendorsStore(db),
  credentials: ({ db }) => credentialsStore(db),
  products: ({ db }) => productsStore(db),
  customizedProducts: ({ db }) => customizedProductsStore(db),
  coupons: ({ db }) => couponsStore(db),
  customers: ({ db }) => customersStore(db),
  paymentMethods: ({ db }) => paymentMethodsStore(db),
  transactions: ({ db, dialect, reads, writes, changes }) =>
    notingTransactions(transactionsStore(db, dialect, { reads, writes }), changes, flushOf(db)),
  entries: ({ db, dialect, reads, writes, changes }) =>
    notingEntries(entriesStore(db, dialect, { reads, writes }), changes, flushOf(db)),
  licences: ({ db }) => licencesStore(db),
  licenceActivations: ({ db }) => licenceActivationsStore(db),
  feed: ({ db, dialect, reads }) => feedStore(db, dialect, reads),
  chargeAttempts: ({ db, dialect, writes }) => chargeAttemptsStore(db, dialect, writes),
  idempotency: ({ db }) => idempotencyStore(db),
  billing: ({ db, dialect, changes }) => notingBilling(billingStore(db, dialect), changes, flushOf(db)),
  sandboxClocks: ({ db, dialect, reads }) => sandboxClocksStore(db, dialect, reads),
  panel: ({ db }) => panelStore(db),
  panelFlashes: ({ db }) => panelFlashesStore(db),
  adminSessions: ({ db }) => adminSessionsStore(db),
  processorEvents: ({ db }) => processorEventsStore(db),
  dashboard: ({ db }) => dashboardStore(db),
  operations: ({ db }) => operationsStore(db),
  customerEmails: ({ db, dialect }) => customerEmailsStore(db, dialect),
  payouts: ({ db, dialect }) => payoutsStore(db, dialect),
  taxes: ({ db }) => taxesStore(db),
  operators: ({ db }) => operatorsStore(db),
  webhooks: ({ db, dialect }) => webhooksStore(db, dialect),
  portal: ({ db }) => portalStore(db),
  productImages: ({ db }) => productImagesStore(db),
  pauses: ({ db }) => pausesStore(db),
};

const CONNECTION = Symbol('connection');

/**
 * Each repository is made when first used, and then kept on the object: a database transaction
 * makes a set of them and uses two or three. The getters live on one shared prototype, so a set
 * costs one small object (defining them anew for every transaction cost more than its statements).
 */
const lazyRepositories: object = Object.create(null);
for (const name of Object.keys(MAKE) as (keyof Repositories)[]) {
  Object.defineProperty(lazyRepositories, name, {
    enumerable: true,
    get(this: { [CONNECTION]: Connection }) {
      const made = MAKE[name](this[CONNECTION]);
      Object.defineProperty(this, name, { value: made, enumerable: true });
      return made;
    },
  });
}

function repositories(connection: Connection): Repositories {
  const repos = Object.create(lazyRepositories) as Repositories & { [CONNECTION]: Connection };
  repos[CONNECTION] = connection;
  return repos;
}

/** The domain's Store over one database: plain calls autocommit, `transaction` groups them. */
export function createStore(database: Database): Store {
  const { dialect } = database;
  const top = { db: database.kysely, dialect, reads: database.readRows, writes: undefined, changes: undefined };
  return Object.assign(repositories(top), {
    transaction: <T>(fn: (repos: Repositories) => Promise<T>) =>
      database.transaction(async (db, rows) => {
        const changes = newChangeLog();
        const result = await fn(repositories({ db, dialect, reads: rows, writes: rows, changes }));
        // The changes' webhook events, in the same database transaction (docs/decisions.md §27).
        await enqueueChanges(db, changes);
        return result;
      }),
  });
}
