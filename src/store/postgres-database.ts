import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { AppError } from '../domain/errors.ts';
import { assembleDatabase, type Database, type ReadRows } from './database.ts';
import { asOutage } from './outages.ts';
import { objectsOf, rowBuilder } from './row-objects.ts';
import type { Schema } from './schema.ts';

/**
 * PostgreSQL through node-postgres's pool (docs/decisions.md §12). A lost connection (the server
 * restarted, a backend terminated, the network cut) costs the requests that were using it a 503
 * and nothing else: the pool drops the connection and opens another for the next request.
 */

const rethrowOutage = (err: unknown): never => {
  throw asOutage(err);
};

/**
 * node-postgres reports a connection that dies as an 'error' event, on the pool for an idle one and on
 * the client for one in use; an 'error' event nobody listens to ends the process. Each query on a dead
 * connection fails by itself (and reaches its caller as an outage); the pool discards the connection
 * when it is released, so these events need nothing more than a listener.
 */
function survivesLostConnections(pool: pg.Pool) {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * A statement run with `rowMode: 'array'`, its rows then made objects (row-objects.ts says why): the
 * result as node-postgres gives it otherwise. Failures reach the caller as node-postgres throws them.
 */
async function queryRows(on: Queryable, query: { name?: string; text: string; values: unknown[] }) {
  const result = await on.query<unknown[]>({ ...query, rowMode: 'array' });
  const rows = objectsOf(result.rows, rowBuilder(result.fields.map((field) => field.name)));
  return Object.assign(result, { rows });
}

/** How long a request waits for a connection (a pool in use, a database that does not accept one) before it is told to retry: 503, not a hang. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** How long a statement waits for a row or table lock (held by a stuck or paused process) before it is told to retry, as SQLite's busy_timeout. */
export const LOCK_TIMEOUT_MS = 10_000;

export function openPostgres(
  connectionString: string,
  poolSize = 10,
  timeouts: { connectMs?: number; lockMs?: number } = {},
): Database {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: timeouts.connectMs ?? CONNECT_TIMEOUT_MS,
    // A migration that meets it fails as an outage too, and is tried again (src/database-wait.ts).
    lock_timeout: timeouts.lockMs ?? LOCK_TIMEOUT_MS,
    // A peer gone without a word (a host down, a cut link) is noticed on an idle connection too.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // int8 columns hold minor units well inside Number.MAX_SAFE_INTEGER.
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
    },
  });
  survivesLostConnections(pool);
  // One name per SQL text: the texts are few (parameters are bound), and a name must stay with its text.
  const names = new Map<string, string>();
  let named = 0;
  const readRows: ReadRows = async (sql, parameters) => {
    let name = names.get(sql);
    if (name === undefined) names.set(sql, (name = `opentill_read_${++named}`));
    try {
      return (await queryRows(pool, { name, text: sql, values: parameters as unknown[] })).rows;
    } catch (err) {
      // A migration by another process changed a table under a prepared `select *` ("cached plan
      // must not change result type"): prepare it anew under another name.
      if ((err as { code?: string }).code !== '0A000') throw asOutage(err);
      names.set(sql, (name = `opentill_read_${++named}`));
      return (await queryRows(pool, { name, text: sql, values: parameters as unknown[] }).catch(rethrowOutage)).rows;
    }
  };
  return assembleDatabase(
    new Kysely<Schema>({ dialect: new PostgresDialect({ pool: preparedStatements(pool) }) }),
    'postgres',
    {
      readRows,
      connections: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    },
  );
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
  const nameOf = (text: string) =>
    names.get(text) ?? (names.size < maxNames && text.length <= maxLength ? rename(text) : undefined);
  type Client = Pick<pg.PoolClient, 'query' | 'release'>;
  const wrapped = new WeakMap<pg.PoolClient, Client>();
  const wrapClient = (client: pg.PoolClient): Client => {
    let inTransaction = false;
    async function query(text: unknown, values?: unknown[]) {
      if (typeof text !== 'string' || !values?.length) {
        if (typeof text === 'string') {
          // Any other statement leaves the flag as it is.
          if (/^\s*(begin|start)/i.test(text)) inTransaction = true;
          else if (/^\s*(commit|rollback)\b/i.test(text)) inTransaction = false;
        }
        return client.query(text as string, values).catch(rethrowOutage);
      }
      const name = nameOf(text);
      if (name === undefined) return queryRows(client, { text, values }).catch(rethrowOutage);
      try {
        return await queryRows(client, { name, text, values });
      } catch (err) {
        // Another process migrated a table under a prepared `select *` ("cached plan must not change
        // result type"): the text is prepared anew under another name. Alone it simply runs again;
        // inside a transaction, which the error aborted, the request is refused as one to retry.
        if ((err as { code?: string }).code !== '0A000') throw asOutage(err);
        const renamed = rename(text);
        if (!inTransaction) return queryRows(client, { name: renamed, text, values }).catch(rethrowOutage);
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'The database changed under this request (another opentill process upgraded it); retry it.',
          {
            retryAfterSeconds: 1,
          },
        );
      }
    }
    return { query: query as Client['query'], release: (err?: Error | boolean) => client.release(err) };
  };
  return {
    async connect() {
      const client = await pool.connect().catch(rethrowOutage);
      let made = wrapped.get(client);
      if (!made) wrapped.set(client, (made = wrapClient(client)));
      return made;
    },
    end: () => pool.end(),
  };
}
