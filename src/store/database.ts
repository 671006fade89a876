import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { CompiledQuery, Kysely, Migrator, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type Transaction } from 'kysely';
import { migrationProvider } from './migrations/index.ts';
import type { Schema } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';
export type Executor = Kysely<Schema> | Transaction<Schema>;

export interface Database {
  readonly kysely: Kysely<Schema>;
  readonly dialect: DialectName;
  /**
   * Runs fn in one database transaction. Refuses to nest (throws while one is open in the same
   * async context): a nested call would not be atomic with the outer one, and on SQLite's single
   * connection it would wait for the outer one forever.
   */
  transaction<T>(fn: (trx: Transaction<Schema>) => Promise<T>): Promise<T>;
  migrate(): Promise<string[]>;
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

/** Writers take the write lock at BEGIN, so two processes never deadlock upgrading a read lock. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/**
 * Kysely prepares every query anew; on a hot read path preparing costs more than running the
 * query. Statements are reused per SQL text (the texts are few: parameters are bound, not inlined).
 */
function withStatementCache(sqlite: SQLite.Database, max = 1000) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * Creates the database file readable by its owner only (0600, whatever the umask), before SQLite would
 * create it 0644. SQLite gives the -wal and -shm files it creates later the database file's mode.
 */
function createPrivateFile(file: string) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/** `:memory:` is a database of this process alone, gone when it closes (docs/decisions.md §11). */
export function openSqlite(file: string): Database {
  if (file !== ':memory:') createPrivateFile(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  // 64 MiB of page cache (the default is 2 MiB): hot index and table pages stay in memory
  // instead of costing a read() system call per page on every lookup.
  sqlite.pragma('cache_size = -65536');
  const kysely = new Kysely<Schema>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  if (file === ':memory:') return wrap(kysely, 'sqlite');
  const reader = new SQLite(file, { readonly: true });
  reader.pragma('busy_timeout = 10000');
  reader.pragma('cache_size = -65536');
  const statements = withStatementCache(reader);
  return wrap(kysely, 'sqlite', {
    readRows: (sql, parameters) => statements.prepare(sql).all(...parameters),
    close: () => reader.close(),
  });
}

export function openPostgres(connectionString: string, poolSize = 10): Database {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    // int8 columns hold minor units well inside Number.MAX_SAFE_INTEGER.
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
    },
  });
  // One name per SQL text: the texts are few (parameters are bound), and a name must stay with its text.
  const names = new Map<string, string>();
  let named = 0;
  const readRows: ReadRows = async (sql, parameters) => {
    let name = names.get(sql);
    if (name === undefined) names.set(sql, (name = `opentill_read_${++named}`));
    try {
      return (await pool.query({ name, text: sql, values: parameters as unknown[] })).rows;
    } catch (err) {
      // A migration by another process changed a table under a prepared `select *` ("cached plan
      // must not change result type"): prepare it anew under another name.
      if ((err as { code?: string }).code !== '0A000') throw err;
      names.set(sql, (name = `opentill_read_${++named}`));
      return (await pool.query({ name, text: sql, values: parameters as unknown[] })).rows;
    }
  };
  return wrap(new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) }), 'postgres', { readRows, close: () => {} });
}

export function openDatabase(options: { databaseUrl?: string | undefined; sqliteFile: string }): Database {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options.sqliteFile);
}

function wrap(kysely: Kysely<Schema>, dialect: DialectName, reads?: { readRows: ReadRows; close: () => void }): Database {
  // The transaction whose fn is running in this async context, if any. `open` turns false when fn
  // ends, so work fn started and left running (a timer, an unawaited promise) may open its own later.
  const current = new AsyncLocalStorage<{ open: boolean }>();
  return {
    kysely,
    dialect,
    readRows: reads?.readRows,
    async transaction(fn) {
      if (current.getStore()?.open) throw new Error('nested database transaction');
      const state = { open: true };
      return current.run(state, () =>
        kysely.transaction().execute(async (trx) => {
          try {
            return await fn(trx);
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
    async close() {
      await kysely.destroy();
      reads?.close();
    },
  };
}

/** True when err is a unique-constraint violation on either store. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
