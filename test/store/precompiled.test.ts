import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { precompiled, precompiledRows } from '../../src/store/precompiled.ts';
import type { Database } from '../../src/store/database.ts';
import { openPostgres } from '../../src/store/postgres-database.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';

for (const kind of await storeKinds()) {
  describe(`precompiled queries (${kind})`, () => {
    let database: Database;
    let url: string | undefined;
    let drop: () => Promise<void>;
    before(async () => {
      ({ database, drop, url } = await freshDatabase(kind));
      const at = '2030-01-01T00:00:00.000Z';
      await database.kysely
        .insertInto('vendors')
        .values(['a', 'b'].map((id) => ({ id, name: id, email: `${id}@example.com`, created_at: at })) as never)
        .execute();
    });
    after(() => drop());

    test('binds each call’s values to the placeholders the builder used, in whatever order the SQL takes them', async () => {
      const db = database.kysely;
      // The SQL takes email before id: the second argument binds first.
      const find = precompiled(db, 2, (id: string, email: string) =>
        db.selectFrom('vendors').select('id').where('email', '=', email).where('id', '=', id),
      );
      assert.deepEqual(await find('a', 'a@example.com'), [{ id: 'a' }]);
      assert.deepEqual(await find('b', 'b@example.com'), [{ id: 'b' }]);
      assert.deepEqual(await find('a', 'b@example.com'), []);
      // One value used twice.
      const either = precompiled(db, 1, (id: string) =>
        db
          .selectFrom('vendors')
          .select('id')
          .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', id)])),
      );
      assert.deepEqual(await either('b'), [{ id: 'b' }]);
    });

    test('queries shared by name are built once per process, whichever executor runs them', async () => {
      const db = database.kysely;
      let builds = 0;
      const name = `${kind}:test.vendorById`;
      const make = (executor: typeof db) =>
        precompiled(
          executor,
          1,
          (id: string) => {
            builds++;
            return executor.selectFrom('vendors').select('id').where('id', '=', id);
          },
          { shareAs: name },
        );
      assert.deepEqual(await make(db)('a'), [{ id: 'a' }]);
      const inTransaction = await database.transaction(async (trx) => make(trx as never)('b'));
      assert.deepEqual(inTransaction, [{ id: 'b' }]);
      assert.equal(builds, 1);
    });

    test(
      'a hot read survives another process adding a column under its prepared statement',
      { skip: kind !== 'postgres' },
      async () => {
        const read = database.readRows!;
        const sql = 'select * from vendors where id = $1';
        // Prepared on every pooled connection, then the table changes under them.
        await Promise.all(Array.from({ length: 10 }, async () => read(sql, ['a'])));
        await database.kysely.schema.alterTable('vendors').addColumn('bench_extra', 'text').execute();
        const after = await Promise.all(Array.from({ length: 10 }, async () => read(sql, ['a'])));
        for (const rows of after) assert.equal((rows as { id: string }[])[0]!.id, 'a');
        await database.kysely.schema.alterTable('vendors').dropColumn('bench_extra').execute();
      },
    );

    test(
      'every statement Kysely runs survives another process adding a column under its prepared form: alone it runs again, in a transaction it is refused as one to retry',
      { skip: kind !== 'postgres' },
      async () => {
        // One connection, so the statement is surely prepared on the connection that meets the change.
        const single = openPostgres(url!, 1);
        const other = database.kysely;
        const find = () => single.kysely.selectFrom('vendors').selectAll().where('id', '=', 'a').execute();
        try {
          await find();
          await other.schema.alterTable('vendors').addColumn('bench_extra', 'text').execute();
          assert.equal((await find())[0]!.id, 'a');
          await other.schema.alterTable('vendors').dropColumn('bench_extra').execute();
          assert.equal((await find())[0]!.id, 'a');
          await other.schema.alterTable('vendors').addColumn('bench_extra', 'text').execute();
          await assert.rejects(
            single.transaction((trx) => trx.selectFrom('vendors').selectAll().where('id', '=', 'a').execute()),
            (err: Error & { code?: string }) => err.name === 'AppError' && err.code === 'SERVICE_UNAVAILABLE',
          );
          const again = await single.transaction((trx) =>
            trx.selectFrom('vendors').selectAll().where('id', '=', 'a').execute(),
          );
          assert.equal(again[0]!.id, 'a');
        } finally {
          await single.close();
          await sql`alter table vendors drop column if exists bench_extra`.execute(other);
        }
      },
    );

    test('values the builder wrote into the statement itself stay constants of it', async () => {
      const db = database.kysely;
      const named = precompiled(db, 1, (email: string) =>
        db.selectFrom('vendors').select('id').where('email', '=', email).where('id', 'in', ['a', 'b']),
      );
      assert.deepEqual(await named('a@example.com'), [{ id: 'a' }]);
      assert.deepEqual(await named('c@example.com'), []);
    });

    test('a builder that does not bind a value it was given is refused at once, not run with a wrong parameter', async () => {
      const db = database.kysely;
      const careless = precompiled<[string, string], { id: string }>(db, 2, (id: string) =>
        db.selectFrom('vendors').select('id').where('id', '=', id),
      );
      await assert.rejects(careless('a', 'unused'), /must bind each of its 2 values/);
    });

    test('a statement over many rows binds each row’s values, keeps the statement’s own constants, and compiles each row count once', async () => {
      const db = database.kysely;
      let builds = 0;
      const named = precompiledRows<{ id: string; name: string }, { id: string }>(['id', 'name'], (executor, rows) => {
        builds++;
        return executor
          .selectFrom('vendors')
          .select('id')
          .where('email', 'like', '%@example.com')
          .where((eb) => eb.or(rows.map((r) => eb.and([eb('id', '=', r.id), eb('name', '=', r.name)]))))
          .orderBy('id');
      });
      assert.deepEqual(await named(db, kind, [{ id: 'a', name: 'a' }]), [{ id: 'a' }]);
      assert.deepEqual(await named(db, kind, [{ id: 'b', name: 'b' }]), [{ id: 'b' }]);
      assert.deepEqual(
        await named(db, kind, [
          { id: 'a', name: 'a' },
          { id: 'b', name: 'x' },
        ]),
        [{ id: 'a' }],
      );
      assert.equal(builds, 2, 'one build per row count');
      const careless = precompiledRows<{ id: string; name: string }, { id: string }>(['id', 'name'], (executor, rows) =>
        executor.selectFrom('vendors').select('id').where('id', '=', rows[0]!.id),
      );
      await assert.rejects(careless(db, kind, [{ id: 'a', name: 'a' }]), /must bind each of its 2 values/);
    });
  });
}
