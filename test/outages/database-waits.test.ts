import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import type { Database } from '../../src/store/database.ts';
import { openPostgres } from '../../src/store/postgres-database.ts';
import { openSqlite } from '../../src/store/sqlite-database.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * What a request does when the database is there but cannot serve it in time (issue 31): a pool whose
 * connections are all in use, a row another process holds locked, SQLite's write lock held by another
 * process. Each waits a bounded time (shortened here), then answers 503 with Retry-After and changes
 * nothing; its retry, with the same Idempotency-Key, goes through once the database is free again.
 */
const postgres = (await storeKinds()).includes('postgres');

async function appOn(database: Database): Promise<{ t: TestApp; v: TestVendor; id: string }> {
  const t = await startTestApp(database.dialect, { database });
  const v = await t.newVendor();
  const product = await v.product({ type: 'ONETIME' });
  return { t, v, id: await v.buy(product.id) };
}

function assertRetryLater(res: { status: number; headers: Headers; json: { error?: string } }) {
  assert.equal(res.status, 503);
  assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
  assert.equal(res.json.error, 'SERVICE_UNAVAILABLE');
}

describe('a database that cannot serve in time', () => {
  test(
    'PostgreSQL: every pooled connection in use past the connect timeout answers 503, and serves once one is free',
    { skip: !postgres && 'needs PostgreSQL' },
    async () => {
      const store = await freshDatabase('postgres');
      const database = openPostgres(store.url!, 1, { connectMs: 300 });
      const { t, v, id } = await appOn(database);
      try {
        let release!: () => void;
        const held = database.transaction(() => new Promise<void>((resolve) => (release = resolve)));
        assertRetryLater(await v.api(`/v1/transaction/${id}`));
        release();
        await held;
        assert.equal((await v.api(`/v1/transaction/${id}`)).status, 200);
      } finally {
        await t.close();
        await database.close();
        await store.drop();
      }
    },
  );

  test(
    'PostgreSQL: a row locked by another process past the lock timeout answers 503, and the retried refund goes through once it is free',
    { skip: !postgres && 'needs PostgreSQL' },
    async () => {
      const store = await freshDatabase('postgres');
      const database = openPostgres(store.url!, 5, { lockMs: 300 });
      const { t, v, id } = await appOn(database);
      const other = new pg.Client({ connectionString: store.url });
      try {
        await other.connect();
        await other.query('begin');
        await other.query('select id from transactions where id = $1 for update', [id]);
        const refund = () =>
          v.api(`/v1/refund-transaction/${id}`, { method: 'POST', headers: { 'idempotency-key': 'locked-refund' } });
        assertRetryLater(await refund());
        await other.query('rollback');
        const retried = await refund();
        assert.equal(retried.status, 200, retried.text);
        assert.equal((await v.api(`/v1/transaction/${id}`)).json.entries.length, 2, 'one payment, one refund');
      } finally {
        await other.end();
        await t.close();
        await database.close();
        await store.drop();
      }
    },
  );

  test("SQLite: another process's write lock held past the busy timeout answers 503, and the write goes through once it is released", async () => {
    const store = await freshDatabase('sqlite');
    await store.database.close();
    const database = openSqlite(store.file!, { busyTimeoutMs: 200 });
    const { t, v, id } = await appOn(database);
    const other = new SQLite(store.file!);
    try {
      other.prepare('begin immediate').run();
      assertRetryLater(await v.api(`/v1/transaction/${id}`, { body: { payload: 'while locked' } }));
      other.prepare('rollback').run();
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.payload, null, 'the refused write changed nothing');
      assert.equal((await v.api(`/v1/transaction/${id}`, { body: { payload: 'once free' } })).status, 200);
    } finally {
      other.close();
      await t.close();
      await database.close();
      await store.drop();
    }
  });
});
