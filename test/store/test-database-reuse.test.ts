import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { freshDatabase, storeKinds } from '../../support/databases.ts';

/**
 * PostgreSQL test databases are emptied and kept for the process's next test (support/postgres-reuse.ts):
 * the next test must find one as fresh as a copy of the template, and one whose shape a test changed
 * must not be handed on.
 */
const exists = async (url: string) => {
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  try {
    const name = new URL(url).pathname.slice(1);
    return (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
};

const vendor = (id: string) => ({ id, name: id, email: `${id}@example.com`, created_at: '2030-01-01T00:00:00.000Z' });

if ((await storeKinds()).includes('postgres')) {
  describe('PostgreSQL test databases kept for the next test', () => {
    test('the next test gets the same database with no row of the last one, its sequences restarted, its migrations kept', async () => {
      const first = await freshDatabase('postgres');
      const fresh = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(
        first.database.kysely,
      );
      await first.database.kysely.insertInto('vendors').values(vendor('TC-VE_reuse')).execute();
      const seq = sql<{ v: string }>`select nextval('ledger_entries_book_seq_seq')::text as v`;
      const before = (await seq.execute(first.database.kysely)).rows[0]!.v;
      await seq.execute(first.database.kysely);
      await first.drop();

      const second = await freshDatabase('postgres');
      try {
        assert.equal(second.url, first.url, 'the emptied database is handed on');
        const vendors = await second.database.kysely.selectFrom('vendors').selectAll().execute();
        assert.deepEqual(vendors, []);
        assert.equal((await seq.execute(second.database.kysely)).rows[0]!.v, before, 'the sequence starts over');
        const migrations = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(
          second.database.kysely,
        );
        assert.deepEqual(migrations.rows, fresh.rows);
        // The rows the foreign keys tie together go too: a vendor of the same id can be made again.
        await second.database.kysely.insertInto('vendors').values(vendor('TC-VE_reuse')).execute();
      } finally {
        await second.drop();
      }
    });

    test('a database whose shape a test changed (a fault trigger) is dropped, not handed on', async () => {
      const changed = await freshDatabase('postgres');
      await sql`create function fault_fail() returns trigger language plpgsql as $$ begin raise exception 'injected'; end $$`.execute(
        changed.database.kysely,
      );
      await sql`create trigger fault_vendors before insert on vendors for each row execute function fault_fail()`.execute(
        changed.database.kysely,
      );
      await changed.drop();
      assert.equal(await exists(changed.url!), false);
      const next = await freshDatabase('postgres');
      try {
        assert.notEqual(next.url, changed.url);
        await next.database.kysely.insertInto('vendors').values(vendor('TC-VE_after')).execute();
      } finally {
        await next.drop();
      }
    });
  });
}
