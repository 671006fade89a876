import type { Environment } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import type { AdminSessionsTable } from './schema.ts';
import { whereScope } from './scope.ts';

/** Sessions of the admin tool, by the hash of their token (docs/decisions.md §18). */
const toSession = (row: AdminSessionsTable) => ({
  idHash: row.id_hash,
  vendorId: row.vendor_id,
  environment: row.environment as Environment,
  openedBy: row.opened_by,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at,
});

export function adminSessionsStore(db: Executor): Repositories['adminSessions'] {
  return {
    async insert(s) {
      await db
        .insertInto('admin_sessions')
        .values({
          id_hash: s.idHash,
          vendor_id: s.vendorId,
          environment: s.environment,
          opened_by: s.openedBy,
          expires_at: s.expiresAt,
          revoked_at: s.revokedAt,
          created_at: s.createdAt,
        })
        .execute();
    },
    async find(idHash) {
      const row = await db
        .selectFrom('admin_sessions')
        .leftJoin('panel_sessions', 'panel_sessions.id_hash', 'admin_sessions.opened_by')
        .selectAll('admin_sessions')
        .select('panel_sessions.id_hash as opener')
        .where('admin_sessions.id_hash', '=', idHash)
        .executeTakeFirst();
      return row && { ...toSession(row), openerSignedIn: row.opener !== null };
    },
    async revokeOpenedBy(panelSessionHash, at) {
      const result = await db
        .updateTable('admin_sessions')
        .set({ revoked_at: at })
        .where('opened_by', '=', panelSessionHash)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async revokeAll(scope, at) {
      const result = await db
        .updateTable('admin_sessions')
        .set({ revoked_at: at })
        .$call(whereScope(scope))
        .where('expires_at', '>', at)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async deleteExpired(scope, before) {
      await db.deleteFrom('admin_sessions').$call(whereScope(scope)).where('expires_at', '<=', before).execute();
    },
  };
}
