import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Database } from '../src/store/database.ts';
import { openPostgres } from '../src/store/postgres-database.ts';
import { openSqlite } from '../src/store/sqlite-database.ts';

/**
 * Every API test runs on both stores. PostgreSQL is at 127.0.0.1:5432 on the machines that run
 * the tests; elsewhere its run is skipped with a clear note, unless OPENTILL_REQUIRE_POSTGRES=1
 * (CI) makes its absence a failure.
 */
export type StoreKind = 'sqlite' | 'postgres';

const ADMIN_URL = process.env.OPENTILL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

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

/** A fresh, migrated database of its own; `drop` removes it. `url` is set for PostgreSQL (its connection URL). */
export async function freshDatabase(
  kind: StoreKind,
): Promise<{ database: Database; url?: string; file?: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-test-'));
    const file = join(dir, 'test.db');
    const database = openSqlite(file);
    await database.migrate();
    return {
      database,
      file,
      async drop() {
        await database.close().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `opentill_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = openPostgres(url.toString(), 25);
  await database.migrate();
  return {
    database,
    url: url.toString(),
    async drop() {
      await database.close().catch(() => undefined);
      const cleanup = new pg.Client({ connectionString: ADMIN_URL });
      await cleanup.connect();
      // pool.end() resolves before its idle connections have said goodbye; a forced drop then kills
      // them and their 'error' event, which has no listener, becomes an uncaught exception. Wait for them.
      for (let i = 0; i < 100; i++) {
        const { rows } = await cleanup.query<{ n: number }>(
          'select count(*)::int as n from pg_stat_activity where datname = $1',
          [name],
        );
        if (rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
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
