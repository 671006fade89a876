import type { Environment } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import type { PortalSignInsTable } from './schema-portal.ts';
import { issuedBuyersStore } from './issued-buyers-store.ts';
import { whereScope } from './scope.ts';

const toSignIn = (row: PortalSignInsTable) => ({
  tokenHash: row.token_hash,
  scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
  email: row.email,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  usedAt: row.used_at,
});

/** The customer portal's sign-in links and settings (migration 0030, docs/decisions.md §34). */
/** The sign-in links, by the hash of their token. */
function signIns(
  db: Executor,
): Pick<Repositories['portal'], 'insertSignIn' | 'findSignIn' | 'useSignIn' | 'deleteExpiredSignIns'> {
  return {
    async insertSignIn(s) {
      await db
        .insertInto('portal_sign_ins')
        .values({
          token_hash: s.tokenHash,
          vendor_id: s.scope.vendorId,
          environment: s.scope.environment,
          email: s.email,
          expires_at: s.expiresAt,
          used_at: null,
          created_at: s.createdAt,
        })
        .execute();
    },
    async findSignIn(tokenHash) {
      const row = await db
        .selectFrom('portal_sign_ins')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && toSignIn(row);
    },
    async useSignIn(tokenHash, now) {
      // The update is the check: only the first of two clicks finds it unused.
      const row = await db
        .updateTable('portal_sign_ins')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      return row && toSignIn(row);
    },
    async deleteExpiredSignIns(before) {
      await db.deleteFrom('portal_sign_ins').where('expires_at', '<=', before).execute();
    },
  };
}

export function portalStore(db: Executor): Repositories['portal'] {
  return {
    ...signIns(db),
    ...issuedBuyersStore(db),
    async switchesOf(scope, productId) {
      const rows = await db
        .selectFrom('portal_plan_switches')
        .select('to_product_id')
        .$call(whereScope(scope))
        .where('product_id', '=', productId)
        .orderBy('to_product_id')
        .execute();
      return rows.map((r) => r.to_product_id);
    },
    async setSwitches(scope, productId, toProductIds) {
      await db
        .deleteFrom('portal_plan_switches')
        .$call(whereScope(scope))
        .where('product_id', '=', productId)
        .execute();
      if (toProductIds.length === 0) return;
      await db
        .insertInto('portal_plan_switches')
        .values(
          [...new Set(toProductIds)].map((to) => ({
            vendor_id: scope.vendorId,
            environment: scope.environment,
            product_id: productId,
            to_product_id: to,
          })),
        )
        .execute();
    },
    async cancelNow(vendorId) {
      const row = await db
        .selectFrom('portal_settings')
        .select('cancel_now')
        .where('vendor_id', '=', vendorId)
        .executeTakeFirst();
      return Number(row?.cancel_now ?? 0) === 1;
    },
    async setCancelNow(vendorId, allowed) {
      await db
        .insertInto('portal_settings')
        .values({ vendor_id: vendorId, cancel_now: allowed ? 1 : 0 })
        .onConflict((c) => c.column('vendor_id').doUpdateSet({ cancel_now: allowed ? 1 : 0 }))
        .execute();
    },
    async customerSeats(vendorId) {
      const row = await db
        .selectFrom('portal_settings')
        .select('customer_seats')
        .where('vendor_id', '=', vendorId)
        .executeTakeFirst();
      return Number(row?.customer_seats ?? 0) === 1;
    },
    async setCustomerSeats(vendorId, allowed) {
      await db
        .insertInto('portal_settings')
        .values({ vendor_id: vendorId, customer_seats: allowed ? 1 : 0 })
        .onConflict((c) => c.column('vendor_id').doUpdateSet({ customer_seats: allowed ? 1 : 0 }))
        .execute();
    },
  };
}
