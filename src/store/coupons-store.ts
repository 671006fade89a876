import type { Selectable } from 'kysely';
import type { ChargeFrequency, Coupon, CouponDuration, Environment, Scope } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import { revokeOwned } from './revocation.ts';
import { whereScope } from './scope.ts';
import type { CouponsTable } from './schema-coupons.ts';

const toCoupon = (row: Selectable<CouponsTable>): Coupon => ({
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
  duration: row.duration as CouponDuration,
  durationPeriods: row.duration_periods === null ? null : Number(row.duration_periods),
  maxRedemptions: row.max_redemptions === null ? null : Number(row.max_redemptions),
  redemptions: Number(row.redemptions),
  maxPerCustomer: row.max_per_customer === null ? null : Number(row.max_per_customer),
  otherProductIds: row.other_product_ids_json ? (JSON.parse(row.other_product_ids_json) as string[]) : [],
  frequencies: row.frequencies_json ? (JSON.parse(row.frequencies_json) as ChargeFrequency[]) : null,
  firstPurchaseOnly: Number(row.first_purchase_only) === 1,
  startsAt: row.starts_at,
});

/** The coupon of `productId` with a code: its own product's first, else one that also applies to it. */
const applyingTo = (coupons: Coupon[], productId: string) =>
  coupons.find((c) => c.productId === productId) ?? coupons.find((c) => c.otherProductIds.includes(productId));

export function couponsStore(db: Executor): Repositories['coupons'] {
  const scoped = (scope: Scope) => db.selectFrom('coupons').selectAll().$call(whereScope(scope));
  const withCode = async (scope: Scope, code: string) =>
    (await scoped(scope).where('code', '=', code).orderBy('created_at').orderBy('id').execute()).map(toCoupon);
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
          duration: c.duration,
          duration_periods: c.durationPeriods,
          max_redemptions: c.maxRedemptions,
          redemptions: 0,
          max_per_customer: c.maxPerCustomer,
          other_product_ids_json: c.otherProductIds.length > 0 ? JSON.stringify(c.otherProductIds) : null,
          frequencies_json: c.frequencies ? JSON.stringify(c.frequencies) : null,
          first_purchase_only: c.firstPurchaseOnly ? 1 : 0,
          starts_at: c.startsAt,
        })
        .execute();
    },
    findByCode: async (scope, productId, code) => applyingTo(await withCode(scope, code), productId),
    withCode,
    async find(scope, id) {
      const row = await scoped(scope).where('id', '=', id).executeTakeFirst();
      return row && toCoupon(row);
    },
    async list(scope) {
      const rows = await scoped(scope).orderBy('created_at').orderBy('id').execute();
      return rows.map(toCoupon);
    },
    revoke: (scope, id, at) => revokeOwned(db, 'coupons', scope, id, at),
    hold: (r) => holdRedemption(db, r),
    async use(transactionId, at) {
      const used = await db
        .updateTable('coupon_redemptions')
        .set({ status: 'USED', updated_at: at })
        .where('transaction_id', '=', transactionId)
        .where('status', '=', 'HELD')
        .executeTakeFirst();
      return Number(used.numUpdatedRows) === 1;
    },
    release: (transactionId, at) => releaseRedemption(db, transactionId, at),
    async hasPaidPurchase(scope, email) {
      const row = await db
        .selectFrom('transactions')
        .select('transactions.id')
        .where('transactions.vendor_id', '=', scope.vendorId)
        .where('transactions.environment', '=', scope.environment)
        .where('transactions.email_lower', '=', email.toLowerCase())
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('ledger_entries')
              .select('ledger_entries.id')
              .whereRef('ledger_entries.transaction_id', '=', 'transactions.id')
              .where('ledger_entries.type', 'in', ['ONETIME_PAYMENT', 'SUBSCRIPTION_PAYMENT']),
          ),
        )
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

type Hold = Parameters<Repositories['coupons']['hold']>[0];

/**
 * Takes one redemption of a coupon for a purchase, in the caller's database transaction: the
 * coupon's counter and the e-mail's are raised only below their caps (conditional UPDATEs, which
 * two processes cannot both pass at the last one), then the purchase's row is written HELD.
 */
async function holdRedemption(db: Executor, r: Hold): Promise<'HELD' | 'USED_UP' | 'CUSTOMER_USED_UP'> {
  const taken = await db
    .updateTable('coupons')
    .set((eb) => ({ redemptions: eb('redemptions', '+', 1) }))
    .where('id', '=', r.couponId)
    .where((eb) => eb.or([eb('max_redemptions', 'is', null), eb('redemptions', '<', eb.ref('max_redemptions'))]))
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) return 'USED_UP';
  const email = r.email.toLowerCase();
  if (r.maxPerCustomer !== null) {
    await db
      .insertInto('coupon_customer_redemptions')
      .values({ coupon_id: r.couponId, email_lower: email, redemptions: 0 })
      .onConflict((oc) => oc.columns(['coupon_id', 'email_lower']).doNothing())
      .execute();
    const mine = await db
      .updateTable('coupon_customer_redemptions')
      .set((eb) => ({ redemptions: eb('redemptions', '+', 1) }))
      .where('coupon_id', '=', r.couponId)
      .where('email_lower', '=', email)
      .where('redemptions', '<', r.maxPerCustomer)
      .executeTakeFirst();
    if (Number(mine.numUpdatedRows) !== 1) return 'CUSTOMER_USED_UP';
  }
  await db
    .insertInto('coupon_redemptions')
    .values({
      transaction_id: r.transactionId,
      coupon_id: r.couponId,
      email_lower: email,
      status: 'HELD',
      created_at: r.at,
      updated_at: r.at,
    })
    .execute();
  return 'HELD';
}

/** Gives a held redemption back (its payment failed): once, whoever asks first. */
async function releaseRedemption(db: Executor, transactionId: string, at: string): Promise<boolean> {
  const released = await db
    .updateTable('coupon_redemptions')
    .set({ status: 'RELEASED', updated_at: at })
    .where('transaction_id', '=', transactionId)
    .where('status', '=', 'HELD')
    .executeTakeFirst();
  if (Number(released.numUpdatedRows) !== 1) return false;
  const row = await db
    .selectFrom('coupon_redemptions')
    .select(['coupon_id', 'email_lower'])
    .where('transaction_id', '=', transactionId)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('coupons')
    .set((eb) => ({ redemptions: eb('redemptions', '-', 1) }))
    .where('id', '=', row.coupon_id)
    .execute();
  await db
    .updateTable('coupon_customer_redemptions')
    .set((eb) => ({ redemptions: eb('redemptions', '-', 1) }))
    .where('coupon_id', '=', row.coupon_id)
    .where('email_lower', '=', row.email_lower)
    .execute();
  return true;
}
