import { sql } from 'kysely';
import type { Scope, SeatPricing } from '../domain/model.ts';
import type { Repositories, TransactionFilter } from '../domain/ports.ts';
import { couponDiscounts, nextRenewalCoupon } from './coupon-figures.ts';
import type { Executor } from './database.ts';
import { whereScope } from './scope.ts';
import { seatsOf } from './seat-columns.ts';
import { toTransaction } from './transaction-rows.ts';

type DashboardRepository = Repositories['dashboard'];

const num = (v: unknown) => Number(v ?? 0);

/** A vendor's transactions that pass the panel's filter. */
function filtered(db: Executor, scope: Scope, f: TransactionFilter) {
  let query = db.selectFrom('transactions').$call(whereScope(scope));
  const q = f.query?.trim();
  if (q) {
    const lower = q.toLowerCase();
    query = query.where((eb) =>
      eb.or([
        eb('id', '=', q),
        eb('email_lower', '=', lower),
        eb('assigned_email_lower', '=', lower),
        eb('customer_id', '=', q),
      ]),
    );
  }
  if (f.statuses?.length) query = query.where('status', 'in', f.statuses);
  if (f.type) query = query.where('type', '=', f.type);
  if (f.productId) query = query.where('product_id', '=', f.productId);
  if (f.customerId) query = query.where('customer_id', '=', f.customerId);
  if (f.from) query = query.where('created_at', '>=', f.from);
  if (f.to) query = query.where('created_at', '<', f.to);
  return query;
}

/** The offers' and products' prices now, and the products' seat tiers, by id, a chunk of ids per statement. */
async function pricesNow(db: Executor, rows: { product_id: string; customized_product_id: string | null }[]) {
  const prices = new Map<string, Record<string, number>>();
  const seats = new Map<string, SeatPricing | null>();
  const productIds = [...new Set(rows.filter((r) => r.customized_product_id === null).map((r) => r.product_id))];
  const offerIds = [...new Set(rows.map((r) => r.customized_product_id).filter((id): id is string => id !== null))];
  for (let i = 0; i < productIds.length; i += 500) {
    const part = productIds.slice(i, i + 500);
    for (const p of await db
      .selectFrom('product_prices')
      .select(['product_id', 'currency', 'amount_minor'])
      .where('product_id', 'in', part)
      .execute()) {
      prices.set(p.product_id, { ...prices.get(p.product_id), [p.currency]: num(p.amount_minor) });
    }
    for (const p of await db
      .selectFrom('products')
      .select(['id', 'seat_min_quantity', 'seat_max_quantity', 'seat_tiers_json'])
      .where('id', 'in', part)
      .execute()) {
      seats.set(p.id, seatsOf(p));
    }
  }
  for (let i = 0; i < offerIds.length; i += 500) {
    const part = offerIds.slice(i, i + 500);
    for (const o of await db
      .selectFrom('customized_products')
      .select(['id', 'prices_json'])
      .where('id', 'in', part)
      .execute()) {
      prices.set(o.id, JSON.parse(o.prices_json) as Record<string, number>);
    }
  }
  return { prices, seats };
}

/** Money in and out per day or month, by currency. */
function revenueFigures(db: Executor): Pick<DashboardRepository, 'revenue'> {
  return {
    async revenue(scope, { from, to, unit }) {
      const length = unit === 'day' ? 10 : 7;
      const bucket = sql<string>`substr(created_at, 1, ${sql.lit(length)})`;
      const rows = await db
        .selectFrom('ledger_entries')
        .$call(whereScope(scope))
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .select([
          bucket.as('bucket'),
          'currency',
          sql<number>`sum(case when net_minor > 0 then net_minor else 0 end)`.as('paid'),
          sql<number>`sum(case when net_minor < 0 then -net_minor else 0 end)`.as('refunded'),
          sql<number>`sum(case when reverses_entry_id is not null then 1 else 0 end)`.as('refunds'),
          sql<number>`sum(case when reverses_entry_id is null then 1 else 0 end)`.as('payments'),
        ])
        .groupBy([bucket, 'currency'])
        .orderBy(bucket)
        .execute();
      return rows.map((r) => ({
        bucket: r.bucket,
        currency: r.currency,
        paidMinor: num(r.paid),
        refundedMinor: num(r.refunded),
        refunds: num(r.refunds),
        payments: num(r.payments),
      }));
    },
  };
}

/** Live subscriptions by plan (with what their plans cost now), and the customers lost since a date. */
function subscriptionFigures(db: Executor): Pick<DashboardRepository, 'subscriptions' | 'churned'> {
  return {
    async subscriptions(scope) {
      const rows = await db
        .selectFrom('transactions')
        .$call(whereScope(scope))
        .where('type', '=', 'SUBSCRIPTION')
        .where('status', 'in', [
          'SUBSCRIPTION_STATUS_ACTIVE',
          'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
          'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
        ])
        .select([
          'status',
          'charge_frequency',
          'currency',
          'product_id',
          'customized_product_id',
          'quantity',
          sql<number>`count(*)`.as('n'),
          sql<number>`sum(net_minor)`.as('net'),
          nextRenewalCoupon.as('coupon_id'),
        ])
        .groupBy(['status', 'charge_frequency', 'currency', 'product_id', 'customized_product_id', 'quantity'])
        .groupBy(nextRenewalCoupon)
        .execute();
      const { prices, seats } = await pricesNow(db, rows);
      const coupons = await couponDiscounts(
        db,
        rows.map((r) => r.coupon_id),
      );
      return rows.map((r) => ({
        status: r.status as never,
        chargeFrequency: r.charge_frequency as never,
        currency: r.currency,
        count: num(r.n),
        netMinor: num(r.net),
        prices: prices.get(r.customized_product_id ?? r.product_id),
        quantity: num(r.quantity),
        // A customized offer's prices are per seat whatever the quantity (seatUnitPrices).
        seats: r.customized_product_id === null ? (seats.get(r.product_id) ?? null) : null,
        coupon: r.coupon_id ? coupons.get(r.coupon_id) : undefined,
      }));
    },
    async churned(scope, since) {
      const row = await db
        .selectFrom('transactions')
        .$call(whereScope(scope))
        // On the partial cancelled_at index; only subscriptions have the date (transaction-rows.ts).
        .where('cancelled_at', '>=', since)
        // A subscription that a plan switch replaced did not lose the customer: its successor counts as live.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('customized_products as offer')
                .innerJoin('transactions as successor', 'successor.customized_product_id', 'offer.id')
                .whereRef('offer.transaction_id_to_migrate', '=', 'transactions.id')
                .select(sql.lit(1).as('one')),
            ),
          ),
        )
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirst();
      return num(row?.n);
    },
  };
}

/** The filtered, paged list of transactions. */
function transactionList(db: Executor): Pick<DashboardRepository, 'searchTransactions'> {
  return {
    async searchTransactions(scope, filter, page) {
      const rows = await filtered(db, scope, filter)
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      const total = await filtered(db, scope, filter)
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirst();
      return { transactions: rows.map(toTransaction), total: num(total?.n) };
    },
  };
}

/** The paged list of customers, and one customer with their cards. */
function customerList(db: Executor): Pick<DashboardRepository, 'customers' | 'customer'> {
  return {
    async customers(scope, query, page) {
      let base = db.selectFrom('customers').$call(whereScope(scope));
      const q = query?.trim().toLowerCase();
      if (q)
        base = base.where((eb) =>
          eb.or([eb('email_lower', 'like', `%${q.replace(/[%_\\]/g, '')}%`), eb('id', '=', query!.trim())]),
        );
      const rows = await base
        .select(['id', 'email', 'first_name', 'last_name', 'created_at'])
        .select((eb) => [
          eb
            .selectFrom('transactions')
            .whereRef('transactions.customer_id', '=', 'customers.id')
            .select(sql<number>`count(*)`.as('n'))
            .as('transactions'),
        ])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      const total = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirst();
      return {
        customers: rows.map((r) => ({
          id: r.id,
          email: r.email,
          firstName: r.first_name,
          lastName: r.last_name,
          createdAt: r.created_at,
          transactions: num(r.transactions),
        })),
        total: num(total?.n),
      };
    },
    async customer(scope, id) {
      const row = await db
        .selectFrom('customers')
        .$call(whereScope(scope))
        .where('id', '=', id)
        .selectAll()
        .executeTakeFirst();
      if (!row) return undefined;
      const cards = await db
        .selectFrom('payment_methods')
        .$call(whereScope(scope))
        .where('customer_id', '=', id)
        .select(['id', 'brand', 'last4', 'exp_month', 'exp_year', 'created_at'])
        .orderBy('created_at', 'desc')
        .execute();
      return {
        id: row.id,
        email: row.email,
        firstName: row.first_name,
        lastName: row.last_name,
        createdAt: row.created_at,
        cards: cards.map((c) => ({
          id: c.id,
          brand: c.brand,
          last4: c.last4,
          expMonth: c.exp_month,
          expYear: c.exp_year,
        })),
      };
    },
  };
}

/**
 * What the vendor panel's dashboard reads: sums and counts grouped in the database (one query per
 * figure, both dialects), and the filtered, paged lists of transactions and customers.
 */
export function dashboardStore(db: Executor): DashboardRepository {
  return { ...revenueFigures(db), ...subscriptionFigures(db), ...transactionList(db), ...customerList(db) };
}
