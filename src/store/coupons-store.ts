import type { Coupon, Environment } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
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
  const scoped = (vendorId: string, environment: string) => db.selectFrom('coupons').selectAll().where('vendor_id', '=', vendorId).where('environment', '=', environment);
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
      const row = await scoped(scope.vendorId, scope.environment).where('product_id', '=', productId).where('code', '=', code).executeTakeFirst();
      return row && toCoupon(row);
    },
    async list(scope) {
      const rows = await scoped(scope.vendorId, scope.environment).orderBy('created_at').orderBy('id').execute();
      return rows.map(toCoupon);
    },
    async revoke(scope, id, at) {
      const result = await db
        .updateTable('coupons')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('vendor_id', '=', scope.vendorId)
        .where('environment', '=', scope.environment)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
