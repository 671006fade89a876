import { AsyncLocalStorage } from 'node:async_hooks';
import { Kysely, Migrator, type Transaction } from 'kysely';
import { migrationProvider } from './migrations/index.ts';
import type { Schema } from './schema.ts';

/*
 * The database as the store uses it, on either engine: `sqlite-database.ts` and
 * `postgres-database.ts` open one, `open-database.ts` picks which. On both, a driver error that
 * says the database cannot serve now reaches callers as SERVICE_UNAVAILABLE (`outages.ts`).
 */

export type DialectName = 'sqlite' | 'postgres';
export type Executor = Kysely<Schema> | Transaction<Schema>;

export interface Database {
  readonly kysely: Kysely<Schema>;
  readonly dialect: DialectName;
  /**
   * Runs fn in one database transaction. Refuses to nest (throws while one is open in the same
   * async context): a nested call would not be atomic with the outer one, and on SQLite's single
   * connection it would wait for the outer one forever. `rows`, where the store has it, runs a
   * compiled statement on the transaction's own connection past Kysely (see `readRows`); on SQLite
   * synchronously, so a short write transaction costs its statements and its commit, not promises.
   */
  transaction<T>(fn: (trx: Executor, rows: ReadRows | undefined) => Promise<T>): Promise<T>;
  migrate(): Promise<string[]>;
  /** Migrations this build knows that the database has not run (another process's newer build may have run more). */
  pendingMigrations(): Promise<string[]>;
  /** PostgreSQL's pool: connections open, idle, and requests waiting for one. Undefined on SQLite (one connection). */
  connections?(): { open: number; idle: number; waiting: number };
  close(): Promise<void>;
  /**
   * Runs a hot read outside any transaction, past Kysely's executor (which cost more than the lookup):
   * on SQLite in a file on a second, read-only connection, synchronously (WAL gives it the last
   * committed state, and it never waits for a writer's connection lock); on PostgreSQL from the pool as
   * a named prepared statement, planned once per connection. Absent for `:memory:` (a second
   * connection would see another database).
   */
  readonly readRows?: ReadRows | undefined;
}

export type ReadRows = (sql: string, parameters: readonly unknown[]) => unknown[] | Promise<unknown[]>;

export type TransactionRunner = <T>(fn: (trx: Executor, rows: ReadRows | undefined) => Promise<T>) => Promise<T>;

export const kyselyTransactions =
  (kysely: Kysely<Schema>): TransactionRunner =>
  (fn) =>
    kysely.transaction().execute((trx) => fn(trx, undefined));

export function assembleDatabase(
  kysely: Kysely<Schema>,
  dialect: DialectName,
  options: {
    readRows?: ReadRows;
    close?: () => void | Promise<void>;
    /** After Kysely's own close: what Kysely closes only if it ever used it (SQLite's writer). */
    closeLast?: () => void;
    transactions?: TransactionRunner;
    connections?: Database['connections'];
  } = {},
): Database {
  // The transaction whose fn is running in this async context, if any. `open` turns false when fn
  // ends, so work fn started and left running (a timer, an unawaited promise) may open its own later.
  const current = new AsyncLocalStorage<{ open: boolean }>();
  const run = options.transactions ?? kyselyTransactions(kysely);
  return {
    kysely,
    dialect,
    readRows: options.readRows,
    async transaction(fn) {
      if (current.getStore()?.open) throw new Error('nested database transaction');
      const state = { open: true };
      return current.run(state, () =>
        run(async (trx, rows) => {
          try {
            return await fn(trx, rows);
          } finally {
            state.open = false;
          }
        }),
      );
    },
    async migrate() {
      const migrator = new Migrator({ db: kysely, provider: migrationProvider });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error;
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    },
    async pendingMigrations() {
      const known = await new Migrator({ db: kysely, provider: migrationProvider }).getMigrations();
      return known.filter((m) => m.executedAt === undefined).map((m) => m.name);
    },
    connections: options.connections,
    async close() {
      // The store's other connections first: the writer, closing last, checkpoints and removes the WAL.
      await options.close?.();
      await kysely.destroy();
      options.closeLast?.();
    },
  };
}

/** True when err is a unique-constraint violation on either store. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
