import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, sql, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';
import { assembleDatabase, type Database, type ReadRows, type TransactionRunner } from './database.ts';
import { asOutage } from './outages.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import type { Schema } from './schema.ts';

/**
 * SQLite through better-sqlite3 (docs/decisions.md §12): one writing connection, a read-only one for
 * the read path, and a checkpointing thread. A statement refused for want of the write lock, disk
 * space or a working file reaches callers as an outage (SERVICE_UNAVAILABLE): the database is fine,
 * the request is to be retried.
 */

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
  private readonly holding: () => boolean;
  constructor(statements: ReturnType<typeof withStatementCache>, holding: () => boolean) {
    this.holding = holding;
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
  private readonly driver: HeldConnectionDriver;
  constructor(driver: HeldConnectionDriver) {
    super({ database: {} as SqliteConfig['database'] });
    this.driver = driver;
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
        try {
          statement = sqlite.prepare(sql);
        } catch (err) {
          throw asOutage(err);
        }
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * The statements as Kysely's own SQLite connection runs them (statements outside a transaction): what
 * an outage throws reaches the caller as one. The hot paths (`readRows`, a transaction's `rows`) catch
 * it themselves, without a wrapper per statement.
 */
function guardedStatements(statements: ReturnType<typeof withStatementCache>) {
  const guard =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return run(...args);
      } catch (err) {
        throw asOutage(err);
      }
    };
  return {
    close: statements.close,
    prepare(text: string) {
      const statement = statements.prepare(text);
      return {
        reader: statement.reader,
        all: guard(statement.all.bind(statement)),
        run: guard(statement.run.bind(statement)),
      };
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
/** How long a writer waits for another process's write lock before its request is told to retry (503). */
export const BUSY_TIMEOUT_MS = 10_000;

export function openSqlite(file: string, options: { busyTimeoutMs?: number } = {}): Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
  if (file !== ':memory:') createPrivateFile(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  sqlite.pragma('foreign_keys = ON');
  // 64 MiB of page cache (the default is 2 MiB): hot index and table pages stay in memory
  // instead of costing a read() system call per page on every lookup.
  sqlite.pragma('cache_size = -65536');
  const statements = withStatementCache(sqlite);
  const dialect = new ImmediateSqliteDialect({
    database: guardedStatements(statements) as unknown as SqliteConfig['database'],
  });
  const kysely = new Kysely<Schema>({ dialect });
  if (file === ':memory:')
    return assembleDatabase(kysely, 'sqlite', {
      transactions: sqliteTransactions(sqlite, statements, kysely, dialect),
      closeLast: () => {
        if (sqlite.open) sqlite.close();
      },
    });
  const checkpointer = startCheckpointer(file, (pages) => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${pages}`);
  });
  const writer = sqliteTransactions(sqlite, statements, kysely, dialect, checkpointer.committed);
  const reader = new SQLite(file, { readonly: true });
  reader.pragma(`busy_timeout = ${busyTimeoutMs}`);
  reader.pragma('cache_size = -65536');
  const readStatements = withStatementCache(reader);
  return assembleDatabase(kysely, 'sqlite', {
    transactions: writer,
    readRows: (sql, parameters) => {
      try {
        return readStatements.prepare(sql).all(...parameters);
      } catch (err) {
        throw asOutage(err);
      }
    },
    close: async () => {
      await checkpointer.stop();
      reader.close();
    },
    // Kysely closes the writer only if a query of its own opened its driver: a store only read, or
    // written through `transactions` alone, is closed here. Then, with no connection left, the WAL index's
    // descriptor (src/store/wal-index.mjs: closed earlier, it would drop SQLite's locks).
    closeLast: () => {
      if (sqlite.open) sqlite.close();
      checkpointer.release();
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
  const held = new Kysely<Schema>({
    dialect: new HeldConnectionDialect(new HeldConnectionDriver(statements, () => holding)),
  });
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
    const trx = held.withPlugin({
      transformQuery: ({ node }) => (requireOpen(), node),
      transformResult: async ({ result }) => result,
    });
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
        // A commit refused for want of disk space leaves the transaction open: it is rolled back.
        if (sqlite.inTransaction) statements.prepare('rollback').run();
        throw err;
      }
    } catch (err) {
      throw asOutage(err);
    } finally {
      await driver.releaseConnection();
    }
  };
}
