import type { Coupon, Environment, Scope } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import { revokeOwned } from './revocation.ts';
import { whereScope } from './scope.ts';
import type { CouponsTable } from './schema.ts';

const toCoupon = (row: CouponsTable): Coupon => ({
  id: row.id,
  vendorId: row.vendor_id,
  environment: row.environment as Environment,
  productId: row.product_id,
  code: row.code,
  percentOff: row.percent_off,
  amountsOff: JSON.parse(row.amounts_off_json) as Record<string, number>,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at,
});

export function couponsStore(db: Executor): Repositories['coupons'] {
  const scoped = (scope: Scope) => db.selectFrom('coupons').selectAll().$call(whereScope(scope));
  return {
    async insert(c) {
      await db
        .insertInto('coupons')
        .values({
          id: c.id,
          vendor_id: c.vendorId,
          environment: c.environment,
          product_id: c.productId,
          code: c.code,
          percent_off: c.percentOff,
          amounts_off_json: JSON.stringify(c.amountsOff),
          expires_at: c.expiresAt,
          revoked_at: c.revokedAt,
          created_at: c.createdAt,
        })
        .execute();
    },
    async findByCode(scope, productId, code) {
      const row = await scoped(scope).where('product_id', '=', productId).where('code', '=', code).executeTakeFirst();
      return row && toCoupon(row);
    },
    async list(scope) {
      const rows = await scoped(scope).orderBy('created_at').orderBy('id').execute();
      return rows.map(toCoupon);
    },
    revoke: (scope, id, at) => revokeOwned(db, 'coupons', scope, id, at),
  };
}
