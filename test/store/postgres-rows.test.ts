import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/store/database.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';

/**
 * PostgreSQL's rows come as arrays and are built into objects by a function per column list
 * (src/store/postgres-database.ts): what a caller gets must be what node-postgres would have given.
 */
const kinds = (await storeKinds()).filter((kind) => kind === 'postgres');
for (const kind of kinds) {
  describe(`rows read from ${kind}`, () => {
    let database: Database;
    let drop: () => Promise<void>;
    before(async () => ({ database, drop } = await freshDatabase(kind)));
    after(() => drop());

    const odd = (first: string) =>
      sql<
        Record<string, unknown>
      >`select ${first}::text as "a""b", 7::int8 as n, null::text as "x y", 'one'::text as c, 'two'::text as c, 'p'::text as "__proto__"`;

    test('through Kysely and through the read path: quoted and odd names, int8 as a number, null kept, a repeated name keeps its last value', async () => {
      const viaKysely = (await odd('k').execute(database.kysely)).rows;
      const compiled = odd('r').compile(database.kysely);
      const viaReads = await database.readRows!(compiled.sql, compiled.parameters);
      for (const [rows, first] of [
        [viaKysely, 'k'],
        [viaReads, 'r'],
      ] as const) {
        assert.equal(rows.length, 1);
        const row = rows[0] as Record<string, unknown>;
        assert.deepEqual(Object.keys(row), ['a"b', 'n', 'x y', 'c', '__proto__']);
        assert.equal(row['a"b'], first);
        assert.equal(row.n, 7);
        assert.equal(row['x y'], null);
        assert.equal(row.c, 'two');
        // An own property, not the prototype.
        assert.equal(Object.getPrototypeOf(row), Object.prototype);
        assert.equal(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 'p');
      }
    });

    test('each column list gets its own shape: two statements in turn do not mix their columns', async () => {
      for (let i = 0; i < 3; i++) {
        const a = (await sql<{ a: number }>`select ${i}::int as a`.execute(database.kysely)).rows;
        const b = (
          await sql<{ b: string; a: string }>`select 'x'::text as b, ${String(i)}::text as a`.execute(database.kysely)
        ).rows;
        assert.deepEqual(a, [{ a: i }]);
        assert.deepEqual(b, [{ b: 'x', a: String(i) }]);
      }
      const none = await sql`select 1 as a where false`.execute(database.kysely);
      assert.deepEqual(none.rows, []);
    });
  });
}
