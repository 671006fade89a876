import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  sql,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type Transaction,
} from 'kysely';
import { AppError } from '../domain/errors.ts';
import { migrationProvider } from './migrations/index.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import type { Schema } from './schema.ts';

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

/** Writers take the write lock at BEGIN, so two processes never deadlock upgrading a read lock. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

type SqliteConfig = ConstructorParameters<typeof SqliteDialect>[0];

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteConfig;
  /** The one driver: its mutex is what every use of the single connection waits for. */
  driver: ImmediateSqliteDriver | undefined;
  constructor(config: SqliteConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return (this.driver = new ImmediateSqliteDriver(this.#config));
  }
}

/**
 * The executor of an open SQLite transaction (`sqliteTransactions`): the connection, which the
 * transaction already holds, without taking the driver's mutex again. It refuses to run while no
 * transaction holds the connection; each transaction's own plugin refuses once that one has ended.
 */
class HeldConnectionDriver implements Driver {
  readonly #connection: DatabaseConnection;
  constructor(
    statements: ReturnType<typeof withStatementCache>,
    private readonly holding: () => boolean,
  ) {
    // As Kysely's own SQLite connection runs a compiled query.
    this.#connection = {
      async executeQuery(query) {
        const statement = statements.prepare(query.sql);
        if (statement.reader) return { rows: statement.all(...query.parameters) as never[] };
        const { changes, lastInsertRowid } = statement.run(...query.parameters);
        return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
      },
      streamQuery() {
        throw new Error('streaming is not used');
      },
    };
  }
  async init() {}
  async acquireConnection() {
    if (!this.holding()) throw new Error('a database transaction was used after it ended');
    return this.#connection;
  }
  async releaseConnection() {}
  async beginTransaction(): Promise<void> {
    throw new Error('nested database transaction');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async destroy() {}
}

class HeldConnectionDialect extends SqliteDialect {
  constructor(private readonly driver: HeldConnectionDriver) {
    super({ database: {} as SqliteConfig['database'] });
  }
  override createDriver(): Driver {
    return this.driver;
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
 * Creates the database file (or a backup of it) readable by its owner only (0600, whatever the umask),
 * a directory it creates 0700, before SQLite would create it 0644. SQLite gives the -wal and -shm files it
 * creates later the database file's mode. A file already there is left as it is.
 */
export function createPrivateFile(file: string) {
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
  const statements = withStatementCache(sqlite);
  const dialect = new ImmediateSqliteDialect({ database: statements });
  const kysely = new Kysely<Schema>({ dialect });
  if (file === ':memory:') return wrap(kysely, 'sqlite', { transactions: sqliteTransactions(sqlite, statements, kysely, dialect) });
  const checkpointer = startCheckpointer(file, (pages) => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${pages}`);
  });
  const writer = sqliteTransactions(sqlite, statements, kysely, dialect, checkpointer.committed);
  const reader = new SQLite(file, { readonly: true });
  reader.pragma('busy_timeout = 10000');
  reader.pragma('cache_size = -65536');
  const readStatements = withStatementCache(reader);
  return wrap(kysely, 'sqlite', {
    transactions: writer,
    readRows: (sql, parameters) => readStatements.prepare(sql).all(...parameters),
    close: async () => {
      await checkpointer.stop();
      reader.close();
    },
  });
}

/**
 * SQLite transactions without Kysely's transaction machinery, which cost more than a short write's
 * statements: the driver's mutex is taken (so no autocommit statement of `kysely` lands inside),
 * BEGIN IMMEDIATE and COMMIT run synchronously on the connection, and fn gets an executor bound to
 * that connection plus `rows`, which runs compiled statements on it synchronously. Both refuse to
 * run once their transaction has ended, as a Kysely transaction does: they would run inside
 * whichever transaction came next.
 */
function sqliteTransactions(
  sqlite: SQLite.Database,
  statements: ReturnType<typeof withStatementCache>,
  kysely: Kysely<Schema>,
  dialect: ImmediateSqliteDialect,
  committed?: () => void,
): TransactionRunner {
  let holding = false;
  const held = new Kysely<Schema>({ dialect: new HeldConnectionDialect(new HeldConnectionDriver(statements, () => holding)) });
  let initialized = false;
  return async (fn) => {
    // Kysely initializes its driver (and with it the mutex) on the first query it runs.
    if (!initialized) {
      await sql`select 1`.execute(kysely);
      initialized = true;
    }
    const driver = dialect.driver!;
    await driver.acquireConnection();
    let open = true;
    const requireOpen = () => {
      if (!open) throw new Error('a database transaction was used after it ended');
    };
    const trx = held.withPlugin({ transformQuery: ({ node }) => (requireOpen(), node), transformResult: async ({ result }) => result });
    const rows: ReadRows = (text, parameters) => {
      requireOpen();
      const statement = statements.prepare(text);
      if (statement.reader) return statement.all(...parameters);
      statement.run(...parameters);
      return [];
    };
    try {
      statements.prepare('begin immediate').run();
      holding = true;
      try {
        const result = await fn(trx, rows);
        open = holding = false;
        statements.prepare('commit').run();
        committed?.();
        return result;
      } catch (err) {
        open = holding = false;
        if (sqlite.inTransaction) statements.prepare('rollback').run();
        throw err;
      }
    } finally {
      await driver.releaseConnection();
    }
  };
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
  return wrap(new Kysely<Schema>({ dialect: new PostgresDialect({ pool: preparedStatements(pool) }) }), 'postgres', {
    readRows,
    connections: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  });
}

/**
 * The pool as Kysely sees it, each of whose clients runs every statement with parameters as a named
 * prepared statement: PostgreSQL parses and plans it once per connection instead of on every run
 * (on a short write that was as much work as the statements themselves). One name per SQL text, at
 * most `maxNames` texts of at most `maxLength` characters (ours are few: parameters are bound);
 * others run unnamed.
 */
function preparedStatements(pool: pg.Pool, maxNames = 4000, maxLength = 4096) {
  const names = new Map<string, string>();
  let named = 0;
  const rename = (text: string) => {
    const name = `opentill_${++named}`;
    names.set(text, name);
    return name;
  };
  // Billing's multi-row statements (tens of kilobytes each, one text per batch size) stay unnamed: their
  // parsing is little beside their rows, and each prepared copy would stay in every connection's memory.
  const nameOf = (text: string) => names.get(text) ?? (names.size < maxNames && text.length <= maxLength ? rename(text) : undefined);
  type Client = Pick<pg.PoolClient, 'query' | 'release'>;
  const wrapped = new WeakMap<pg.PoolClient, Client>();
  const wrapClient = (client: pg.PoolClient): Client => {
    let inTransaction = false;
    async function query(text: unknown, values?: unknown[]) {
      if (typeof text !== 'string' || !values?.length) {
        if (typeof text === 'string') inTransaction = /^\s*(begin|start)/i.test(text) ? true : /^\s*(commit|rollback)\b/i.test(text) ? false : inTransaction;
        return client.query(text as string, values);
      }
      const name = nameOf(text);
      if (name === undefined) return client.query(text, values);
      try {
        return await client.query({ name, text, values });
      } catch (err) {
        // Another process migrated a table under a prepared `select *` ("cached plan must not change
        // result type"): the text is prepared anew under another name. Alone it simply runs again;
        // inside a transaction, which the error aborted, the request is refused as one to retry.
        if ((err as { code?: string }).code !== '0A000') throw err;
        const renamed = rename(text);
        if (!inTransaction) return client.query({ name: renamed, text, values });
        throw new AppError('SERVICE_UNAVAILABLE', 'The database changed under this request (another opentill process upgraded it); retry it.', {
          retryAfterSeconds: 1,
        });
      }
    }
    return { query: query as Client['query'], release: (err?: Error | boolean) => client.release(err) };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let made = wrapped.get(client);
      if (!made) wrapped.set(client, (made = wrapClient(client)));
      return made;
    },
    end: () => pool.end(),
  };
}

export function openDatabase(options: { databaseUrl?: string | undefined; sqliteFile: string }): Database {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options.sqliteFile);
}

type TransactionRunner = <T>(fn: (trx: Executor, rows: ReadRows | undefined) => Promise<T>) => Promise<T>;

const kyselyTransactions =
  (kysely: Kysely<Schema>): TransactionRunner =>
  (fn) =>
    kysely.transaction().execute((trx) => fn(trx, undefined));

function wrap(
  kysely: Kysely<Schema>,
  dialect: DialectName,
  options: { readRows?: ReadRows; close?: () => void | Promise<void>; transactions?: TransactionRunner; connections?: Database['connections'] } = {},
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
    },
  };
}

/** True when err is a unique-constraint violation on either store. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
