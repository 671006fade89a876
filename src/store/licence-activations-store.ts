import type { Environment } from '../domain/model.ts';
import type { ProductRepository } from '../domain/ports.ts';
import type { LicenceActivationRepository, LicenceRecord } from '../domain/ports/licence-activations.ts';
import type { Selectable } from 'kysely';
import type { Executor } from './database.ts';
import type { LicencesTable } from './schema-licences.ts';
import { whereScope } from './scope.ts';

const toRecord = (row: Selectable<LicencesTable>, retired: boolean): LicenceRecord => ({
  id: row.id,
  scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
  productId: row.product_id,
  transactionId: row.transaction_id,
  key: row.licence_key,
  activationsUsed: Number(row.activations_used),
  revokedAt: row.revoked_at ?? null,
  createdAt: row.created_at,
  retired,
});

/** Licence activations (migration 0035, docs/decisions.md §40). */
export function licenceActivationsStore(db: Executor): LicenceActivationRepository {
  return { ...licenceReads(db), ...licenceWrites(db) };
}

function licenceReads(
  db: Executor,
): Pick<LicenceActivationRepository, 'byKey' | 'byTransaction' | 'byTransactions' | 'instancesOf' | 'instanceNamed'> {
  return {
    async byKey(environment, key) {
      const row = await db
        .selectFrom('licences')
        .selectAll()
        .where('licence_key', '=', key)
        .where('environment', '=', environment)
        .executeTakeFirst();
      if (row) return toRecord(row, false);
      const retired = await db
        .selectFrom('retired_licence_keys as r')
        .innerJoin('licences as l', 'l.id', 'r.licence_id')
        .selectAll('l')
        .where('r.licence_key', '=', key)
        .where('l.environment', '=', environment)
        .executeTakeFirst();
      return retired && toRecord(retired, true);
    },
    async byTransaction(scope, transactionId) {
      const row = await db
        .selectFrom('licences')
        .selectAll()
        .where('transaction_id', '=', transactionId)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return row && toRecord(row, false);
    },
    async byTransactions(scope, transactionIds) {
      const found = new Map<string, LicenceRecord>();
      if (transactionIds.length === 0) return found;
      const rows = await db
        .selectFrom('licences')
        .selectAll()
        .where('transaction_id', 'in', transactionIds)
        .$call(whereScope(scope))
        .execute();
      for (const row of rows) found.set(row.transaction_id, toRecord(row, false));
      return found;
    },
    async instancesOf(licenceIds) {
      if (licenceIds.length === 0) return [];
      const rows = await db
        .selectFrom('licence_instances')
        .selectAll()
        .where('licence_id', 'in', licenceIds)
        .orderBy('activated_at')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ id: r.id, licenceId: r.licence_id, name: r.name, activatedAt: r.activated_at }));
    },
    async instanceNamed(licenceId, name) {
      const r = await db
        .selectFrom('licence_instances')
        .selectAll()
        .where('licence_id', '=', licenceId)
        .where('name', '=', name)
        .executeTakeFirst();
      return r && { id: r.id, licenceId: r.licence_id, name: r.name, activatedAt: r.activated_at };
    },
  };
}

function licenceWrites(
  db: Executor,
): Pick<LicenceActivationRepository, 'takeSlot' | 'insertInstance' | 'removeInstance' | 'revoke' | 'reissue'> {
  return {
    async takeSlot(licenceId, limit) {
      // The limit is checked by the UPDATE itself: PostgreSQL re-evaluates the condition on the row
      // once a concurrent update commits, and SQLite has one writer.
      let update = db
        .updateTable('licences')
        .set((eb) => ({ activations_used: eb('activations_used', '+', 1) }))
        .where('id', '=', licenceId);
      if (limit !== null) update = update.where('activations_used', '<', limit);
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async insertInstance(instance) {
      const result = await db
        .insertInto('licence_instances')
        .values({
          id: instance.id,
          licence_id: instance.licenceId,
          name: instance.name,
          activated_at: instance.activatedAt,
        })
        .onConflict((oc) => oc.columns(['licence_id', 'name']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async removeInstance(licenceId, instanceId) {
      const removed = await db
        .deleteFrom('licence_instances')
        .where('id', '=', instanceId)
        .where('licence_id', '=', licenceId)
        .executeTakeFirst();
      if (Number(removed.numDeletedRows) !== 1) return false;
      await db
        .updateTable('licences')
        .set((eb) => ({ activations_used: eb('activations_used', '-', 1) }))
        .where('id', '=', licenceId)
        .where('activations_used', '>', 0)
        .execute();
      return true;
    },
    async revoke(licenceId, at) {
      const result = await db
        .updateTable('licences')
        .set({ revoked_at: at })
        .where('id', '=', licenceId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async reissue(licenceId, oldKey, newKey, at) {
      const result = await db
        .updateTable('licences')
        .set({ licence_key: newKey, activations_used: 0, revoked_at: null })
        .where('id', '=', licenceId)
        .where('licence_key', '=', oldKey)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await db
        .insertInto('retired_licence_keys')
        .values({ licence_key: oldKey, licence_id: licenceId, retired_at: at })
        .execute();
      await db.deleteFrom('licence_instances').where('licence_id', '=', licenceId).execute();
      return true;
    },
  };
}

/** A product's activation limit (migration 0035); null is no limit. */
export function activationLimitWrites(db: Executor): Pick<ProductRepository, 'setActivationLimit'> {
  return {
    async setActivationLimit(scope, id, limit) {
      const result = await db
        .updateTable('products')
        .set({ activation_limit: limit })
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
