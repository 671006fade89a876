import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Migrator } from 'kysely';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { storeKinds, startTestApp } from '../helpers/test-app.ts';

/**
 * Migration 0020 (docs/decisions.md §19): every vendor there was before it reaches production, as it
 * did; down and up again keep the vendors; after it, a vendor is stored as sandbox-only or not.
 */
for (const kind of await storeKinds()) {
  describe(`migration 0020: production enabled per vendor (${kind})`, () => {
    test('vendors made before it reach production; after it a vendor is stored sandbox-only or not; down and up again keep every vendor', async () => {
      const t = await startTestApp(kind);
      try {
        const db = t.services.database.kysely;
        const migrator = new Migrator({ db, provider: migrationProvider });
        // Back to the version before 0020 (the migrations after it go down first).
        const down = await migrator.migrateTo('0019-partial-reversals');
        assert.equal(down.error, undefined);
        assert.equal(down.results?.at(-1)?.migrationName, '0020-production-enabled');
        assert.ok(down.results?.every((r) => r.direction === 'Down' && r.migrationName >= '0020'));
        // A vendor as the version before this one stored it: no such column.
        await db
          .insertInto('vendors')
          .values({
            id: 'TC-VE_before',
            name: 'Before',
            email: 'before@example.test',
            created_at: '2030-01-01T00:00:00.000Z',
          } as never)
          .execute();
        const up = await migrator.migrateToLatest();
        assert.equal(up.error, undefined);
        assert.equal(
          (await t.services.catalog.requireVendor('TC-VE_before')).productionEnabled,
          true,
          'an existing vendor keeps production',
        );

        const open = await t.services.catalog.createVendor({
          name: 'Open',
          email: 'open@example.test',
          productionEnabled: false,
        });
        const operators = await t.services.catalog.createVendor({ name: 'Operator', email: 'operator@example.test' });
        assert.equal((await t.services.catalog.requireVendor(open.id)).productionEnabled, false);
        assert.equal(
          (await t.services.catalog.requireVendor(operators.id)).productionEnabled,
          true,
          "the operator's vendors reach production",
        );
        const before = await db.selectFrom('vendors').selectAll().orderBy('id').execute();

        assert.equal((await migrator.migrateTo('0019-partial-reversals')).error, undefined);
        assert.equal((await migrator.migrateToLatest()).error, undefined);
        const after = await db.selectFrom('vendors').selectAll().orderBy('id').execute();
        assert.deepEqual(
          after.map((v) => v.id),
          before.map((v) => v.id),
          'every vendor is still there',
        );
        // Down forgets who was sandbox-only: up again treats every vendor as the version before did.
        assert.ok(after.every((v) => Number(v.production_enabled) === 1));
      } finally {
        await t.close();
      }
    });
  });
}
