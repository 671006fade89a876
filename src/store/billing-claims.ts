import type { Selectable } from 'kysely';
import type { ChargeFrequency, Environment, TransactionStatus } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { DialectName, Executor } from './database.ts';
import { precompiledRows } from './precompiled.ts';
import type { TransactionsTable } from './schema.ts';
import { whereScope } from './scope.ts';

/*
 * Claiming the subscriptions due, in one statement per batch, built and compiled once per dialect
 * (src/store/precompiled.ts).
 */

const DUE_COLUMNS = [
  'id',
  'vendor_id',
  'environment',
  'product_id',
  'customized_product_id',
  'payment_method_id',
  'status',
  'charge_frequency',
  'country',
  'region',
  'coupon_id',
  'reverse_charge',
  'postal_code',
  'quantity',
  'currency',
  'next_charge',
  'billing_anchor',
  'billing_anchor_period',
  'billing_period',
  'failed_attempts',
] as const;

type ClaimQuery = Omit<Parameters<Repositories['billing']['claimDue']>[0], 'after'> & {
  afterNextCharge: string;
  afterId: string;
};
type DueRow = Pick<Selectable<TransactionsTable>, (typeof DUE_COLUMNS)[number]> & { token: string | null };

/**
 * Picks the due rows with each one's stored card, in one statement. A row is held while a renewal
 * attempt recorded for it in the last `attemptsSince` window is still open: the attempt committed
 * with the claim is the lease, so claiming writes nothing to the wide transaction row. PostgreSQL
 * skips rows another worker has locked. Rows held for a retry (`billing_lease_until`) wait for it.
 */
function claimStatement(dialect: DialectName, columns: (keyof ClaimQuery & string)[]) {
  return precompiledRows<ClaimQuery, DueRow>(columns, (db, rows) => {
    const q = rows[0]!;
    let due = db
      .selectFrom('transactions')
      .select((eb) => [
        ...DUE_COLUMNS,
        eb
          .selectFrom('payment_methods')
          .select('token')
          .whereRef('payment_methods.id', '=', 'transactions.payment_method_id')
          .as('token'),
      ])
      .where('next_charge', 'is not', null)
      .where('next_charge', '<=', q.dueBy)
      // Past the claim before, on the due index: the rows billed before it left dead index entries
      // (PostgreSQL) that a scan from the start would walk through at every claim until vacuumed.
      .where((eb) => eb(eb.refTuple('next_charge', 'id'), '>', eb.tuple(q.afterNextCharge, q.afterId)))
      .where((eb) => eb.or([eb('billing_lease_until', 'is', null), eb('billing_lease_until', '<', q.now)]))
      // Renewals the operator stopped (docs/decisions.md §24): neither charged nor ended by dunning; a
      // cancelled period still ends. The few stopped vendors are read once per claim, not per row.
      .where((eb) =>
        eb.or([
          eb('status', '=', 'SUBSCRIPTION_STATUS_CANCELLED_PENDING'),
          eb('vendor_id', 'not in', eb.selectFrom('vendors').select('vendors.id').where('renewals_stopped', '=', 1)),
        ]),
      )
      .where(({ not, exists, selectFrom }) => {
        const open = selectFrom('charge_attempts')
          .select('charge_attempts.id')
          .whereRef('charge_attempts.transaction_id', '=', 'transactions.id')
          .where('charge_attempts.kind', '=', 'RENEWAL')
          .where('charge_attempts.created_at', '>', q.attemptsSince)
          .where('charge_attempts.status', '=', 'PENDING');
        // PostgreSQL: asked row by row on the by-transaction index. As an anti-join it reads the
        // open-attempts index whole, and until vacuum that holds an entry for every attempt settled
        // since: late in a 100,000-renewal run a claim took 11 ms instead of 3. OFFSET 0 is the
        // planner's fence against that rewrite (SQLite asks row by row already, and refuses OFFSET without LIMIT).
        return not(exists(dialect === 'postgres' ? open.offset(0) : open));
      });
    if (q.sandboxVendorId) due = due.$call(whereScope({ vendorId: q.sandboxVendorId, environment: 'sandbox' }));
    due = due.orderBy('next_charge').orderBy('id').limit(q.limit);
    return dialect === 'postgres' ? due.forUpdate(['transactions']).skipLocked() : due;
  });
}

const CLAIM: (keyof ClaimQuery & string)[] = ['dueBy', 'afterNextCharge', 'afterId', 'now', 'attemptsSince', 'limit'];
const claims = {
  sqlite: {
    everyone: claimStatement('sqlite', CLAIM),
    sandbox: claimStatement('sqlite', [...CLAIM, 'sandboxVendorId']),
  },
  postgres: {
    everyone: claimStatement('postgres', CLAIM),
    sandbox: claimStatement('postgres', [...CLAIM, 'sandboxVendorId']),
  },
};

/** The due subscriptions of a claim (`billing.claimDue`), each with its stored card's token. */
export async function claimDue(
  db: Executor,
  dialect: DialectName,
  q: Parameters<Repositories['billing']['claimDue']>[0],
) {
  const claim = q.sandboxVendorId ? claims[dialect].sandbox : claims[dialect].everyone;
  // No cursor: from the start ('' sorts before every date and id).
  const rows = await claim(db, dialect, [
    { ...q, afterNextCharge: q.after?.nextCharge ?? '', afterId: q.after?.id ?? '' },
  ]);
  return rows.map((row) => ({
    transaction: {
      id: row.id,
      vendorId: row.vendor_id,
      environment: row.environment as Environment,
      productId: row.product_id,
      customizedProductId: row.customized_product_id,
      status: row.status as TransactionStatus,
      chargeFrequency: row.charge_frequency as ChargeFrequency,
      country: row.country,
      region: row.region,
      couponId: row.coupon_id,
      reverseCharge: Number(row.reverse_charge) === 1,
      postalCode: row.postal_code,
      quantity: Number(row.quantity),
      currency: row.currency,
      nextCharge: row.next_charge,
      billing: row.billing_anchor
        ? {
            anchor: row.billing_anchor,
            period: Number(row.billing_period),
            failedAttempts: Number(row.failed_attempts),
            anchorPeriod: Number(row.billing_anchor_period),
          }
        : undefined,
    },
    token: (row.payment_method_id && row.token) ?? null,
  }));
}
