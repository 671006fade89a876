import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Database } from '../src/store/database.ts';
import { openPostgres } from '../src/store/postgres-database.ts';
import { openSqlite } from '../src/store/sqlite-database.ts';
import {
  ADMIN_URL,
  keepEmptied,
  reapOrphans,
  rememberFreshShape,
  takeKept,
  testDatabaseName,
} from './postgres-reuse.ts';

/**
 * Every API test runs on both stores. PostgreSQL is at 127.0.0.1:5432 on the machines that run
 * the tests; elsewhere its run is skipped with a clear note, unless OPENTILL_REQUIRE_POSTGRES=1
 * (CI) makes its absence a failure.
 */
export type StoreKind = 'sqlite' | 'postgres';

let postgresAvailable: Promise<boolean> | undefined;

async function probePostgres(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (err) {
    if (process.env.OPENTILL_REQUIRE_POSTGRES === '1') {
      throw new Error(
        `PostgreSQL is required (OPENTILL_REQUIRE_POSTGRES=1) but ${ADMIN_URL} is not reachable: ${(err as Error).message}`,
        { cause: err },
      );
    }
    process.stderr.write(
      `\n*** PostgreSQL at ${ADMIN_URL} is not reachable: the PostgreSQL runs of the API tests are SKIPPED. ***\n\n`,
    );
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The stores the tests run on: both, or SQLite alone with OPENTILL_TEST_STORES=sqlite (`npm run test:quick`). */
export async function storeKinds(): Promise<StoreKind[]> {
  if (process.env.OPENTILL_TEST_STORES === 'sqlite') return ['sqlite'];
  postgresAvailable ??= probePostgres();
  return (await postgresAvailable) ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * Migrations are run once per run, not once per test: the first fresh database of each kind migrates a
 * template named after the migrations' contents, and every fresh database after it is a copy (a file
 * copy on SQLite, CREATE DATABASE ... TEMPLATE on PostgreSQL), byte for byte what migrating gives.
 * Editing a migration names a new template. The store tests of migrations themselves open their own.
 */
const MIGRATIONS = fileURLToPath(new URL('../src/store/migrations/', import.meta.url));
const migrationsHash = createHash('sha256')
  .update(
    readdirSync(MIGRATIONS)
      .sort()
      .map((name) => `${name}\0${readFileSync(join(MIGRATIONS, name), 'utf8')}`)
      .join('\0'),
  )
  .digest('hex')
  .slice(0, 16);

/**
 * SQLite files live in memory (/dev/shm) where the machine has it: the tests' commits then cost no disk
 * flush. What a file in memory keeps through a killed process (every test's crash) is the same.
 */
const SQLITE_DIR = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

let sqliteTemplate: string | undefined;

/** The migrated SQLite template of this run, written once (by whichever process comes first, renamed into place whole). */
async function sqliteTemplateFile(): Promise<string> {
  const file = join(SQLITE_DIR, `opentill-test-template-${migrationsHash}.db`);
  if (sqliteTemplate ?? existsSync(file)) return (sqliteTemplate = file);
  const dir = mkdtempSync(join(SQLITE_DIR, 'opentill-template-'));
  const database = openSqlite(join(dir, 'template.db'));
  await database.migrate();
  await database.close();
  renameSync(join(dir, 'template.db'), file);
  rmSync(dir, { recursive: true, force: true });
  return (sqliteTemplate = file);
}

/**
 * A fresh, migrated database of its own; `drop` removes it (on PostgreSQL: empties it for this process's
 * next test, support/postgres-reuse.ts, or drops it). `url` is set for PostgreSQL (its connection URL).
 */
export async function freshDatabase(
  kind: StoreKind,
): Promise<{ database: Database; url?: string; file?: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const template = await sqliteTemplateFile();
    const dir = mkdtempSync(join(SQLITE_DIR, 'opentill-test-'));
    const file = join(dir, 'test.db');
    copyFileSync(template, file);
    chmodSync(file, 0o600);
    // A copy of the template is migrated already: migrating it again only costs its checks.
    const database = openSqlite(file);
    return {
      database,
      file,
      async drop() {
        await database.close().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  reaped ??= reapOrphans().catch(() => undefined);
  await reaped;
  const reused = takeKept();
  const name = reused ?? testDatabaseName();
  if (!reused) {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`create database ${name} template ${await postgresTemplate(admin)}`);
      // A test database need not wait for the disk at each commit: only the server's own crash could
      // lose what it acknowledged, and no test crashes PostgreSQL.
      await admin.query(`alter database ${name} set synchronous_commit = off`);
    } finally {
      await admin.end();
    }
  }
  const url = databaseUrl(name);
  if (!reused) await rememberFreshShape(url);
  const database = openPostgres(url, 25);
  return { database, url, drop: () => releasePostgres(database, name) };
}

/** Test databases of ended processes, dropped once by each process before its first (support/postgres-reuse.ts). */
let reaped: Promise<void> | undefined;

const databaseUrl = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

let postgresTemplateName: string | undefined;

/**
 * The migrated PostgreSQL template of this run. Made under an advisory lock by the first process to
 * need it, migrated under another name and renamed when done (a copy refuses a template anyone is
 * connected to, and must never find a half-migrated one). Older templates of other migrations are dropped.
 */
async function postgresTemplate(admin: pg.Client): Promise<string> {
  const name = `opentill_test_template_${migrationsHash}`;
  if (postgresTemplateName) return postgresTemplateName;
  const exists = async () => (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  if (await exists()) return (postgresTemplateName = name);
  await admin.query('select pg_advisory_lock(7361844)');
  try {
    if (!(await exists())) {
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const database = openPostgres(databaseUrl(building), 2);
      await database.migrate();
      await database.close();
      await waitForDisconnects(admin, building);
      await admin.query(`alter database ${building} rename to ${name}`);
      // Another checkout's run (other migrations, at the same moment) may be using its template: the
      // newest few are kept (database oids grow with creation), only older ones are dropped.
      const { rows } = await admin.query<{ datname: string }>(
        "select datname from pg_database where datname like 'opentill\\_test\\_template\\_%' and datname <> $1 order by oid desc offset 3",
        [name],
      );
      for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
    }
  } finally {
    await admin.query('select pg_advisory_unlock(7361844)');
  }
  return (postgresTemplateName = name);
}

/** pool.end() resolves before its idle connections have said goodbye: waits until none is left (true), or 2 s (false). */
async function waitForDisconnects(admin: pg.Client, name: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await admin.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where datname = $1',
      [name],
    );
    if (rows[0]?.n === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** A test's database, emptied and kept for the next test when it can be (support/postgres-reuse.ts), else dropped. */
async function releasePostgres(database: Database, name: string): Promise<void> {
  await database.close().catch(() => undefined);
  const cleanup = new pg.Client({ connectionString: ADMIN_URL });
  await cleanup.connect();
  try {
    // A forced drop would kill connections still saying goodbye, and their 'error' event, which has no
    // listener, would become an uncaught exception. Wait for them.
    const gone = await waitForDisconnects(cleanup, name);
    if (gone && (await keepEmptied(databaseUrl(name), name))) return;
    await cleanup.query(`drop database if exists ${name} with (force)`);
  } finally {
    await cleanup.end();
  }
}

/**
 * Redis, for the tests of what several processes share (issue 16): 127.0.0.1:6379 on the machines
 * that run the tests. `reachable` is false elsewhere, unless OPENTILL_REQUIRE_REDIS=1 (CI) makes its
 * absence a failure. Each test keeps its keys under a prefix of its own, and `dropKeys` removes them.
 */
export const REDIS_URL = process.env.OPENTILL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisReachable(): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL);
  const reachable = await new Promise<boolean>((done) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
  if (!reachable && process.env.OPENTILL_REQUIRE_REDIS === '1')
    throw new Error(`Redis is required (OPENTILL_REQUIRE_REDIS=1) but ${REDIS_URL} does not answer`);
  return reachable;
}

export const redisPrefix = () => `opentill-test-${randomBytes(6).toString('hex')}:`;

export async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
