import { sql, type RawBuilder } from 'kysely';
import type { ChargeFrequency, Environment, TransactionStatus } from '../domain/model.ts';
import type { BillingState, Repositories } from '../domain/ports.ts';
import { toAttempt, toAttemptRow } from './attempts-store.ts';
import type { DialectName, Executor } from './database.ts';
import { reserveInvoiceNumbers, toEntryRow } from './ledger-store.ts';
import { whereScope } from './scope.ts';
import { cancelledAtAfter } from './transaction-rows.ts';

/** Rows per statement: far below both stores' limits on bound parameters. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

const int = (value: number | null) => sql`cast(${value} as integer)`;

/** `WITH v(columns) AS (VALUES ...)`: many rows' values in one statement, on both stores. */
function valuesTable(columns: string[], rows: RawBuilder<unknown>[][]) {
  const tuples = rows.map((row) => sql`(${sql.join(row)})`);
  return sql`with v(${sql.join(columns.map((c) => sql.id(c)))}) as (values ${sql.join(tuples)})`;
}

/**
 * What the billing worker reads and writes. Claiming and writing are batched: a batch of due
 * subscriptions costs a handful of statements, whatever its size, so the worker keeps up with
 * the store's raw write rate instead of its round-trip latency.
 */
export function billingStore(db: Executor, dialect: DialectName): Repositories['billing'] {
  return {
    async claimDue(q) {
      // One statement picks the due rows and leases them; PostgreSQL skips rows another worker holds.
      let due = db
        .selectFrom('transactions')
        .select('id')
        .where('next_charge', 'is not', null)
        .where('next_charge', '<=', q.dueBy)
        .where((eb) => eb.or([eb('billing_lease_until', 'is', null), eb('billing_lease_until', '<', q.now)]));
      if (q.sandboxVendorId) due = due.$call(whereScope({ vendorId: q.sandboxVendorId, environment: 'sandbox' }));
      due = due.orderBy('next_charge').orderBy('id').limit(q.limit);
      if (dialect === 'postgres') due = due.forUpdate().skipLocked();
      const rows = await db
        .updateTable('transactions')
        .set({ billing_lease_until: q.leaseUntil })
        .where('id', 'in', due)
        .returning([
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
          'reverse_charge',
          'postal_code',
          'currency',
          'next_charge',
          'billing_anchor',
          'billing_period',
          'failed_attempts',
        ])
        .execute();
      if (rows.length === 0) return [];
      const tokens = new Map<string, string>();
      const methodIds = rows.map((r) => r.payment_method_id).filter((id): id is string => id !== null);
      for (const part of chunks(methodIds)) {
        for (const m of await db.selectFrom('payment_methods').select(['id', 'token']).where('id', 'in', part).execute()) tokens.set(m.id, m.token);
      }
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
          reverseCharge: Number(row.reverse_charge) === 1,
          postalCode: row.postal_code,
          currency: row.currency,
          nextCharge: row.next_charge,
          billing: row.billing_anchor
            ? { anchor: row.billing_anchor, period: Number(row.billing_period), failedAttempts: Number(row.failed_attempts) }
            : undefined,
        },
        token: (row.payment_method_id && tokens.get(row.payment_method_id)) ?? null,
      }));
    },

    async lockMany(ids) {
      const found = new Map<string, BillingState>();
      for (const part of chunks(ids)) {
        let query = db
          .selectFrom('transactions')
          .select(['id', 'status', 'who_canceled', 'last_charge', 'next_charge', 'charge_frequency', 'billing_anchor', 'billing_period', 'failed_attempts'])
          .where('id', 'in', part);
        if (dialect === 'postgres') query = query.forUpdate();
        for (const row of await query.execute()) {
          found.set(row.id, {
            status: row.status as BillingState['status'],
            whoCanceled: row.who_canceled as BillingState['whoCanceled'],
            lastCharge: row.last_charge,
            nextCharge: row.next_charge,
            chargeFrequency: row.charge_frequency as BillingState['chargeFrequency'],
            billing: row.billing_anchor
              ? { anchor: row.billing_anchor, period: Number(row.billing_period), failedAttempts: Number(row.failed_attempts) }
              : undefined,
          });
        }
      }
      return found;
    },

    async recordAttempts(attempts) {
      const byKey = new Map<string, (typeof attempts)[number]>();
      for (const part of chunks(attempts)) {
        const inserted = await db
          .insertInto('charge_attempts')
          .values(part.map(toAttemptRow))
          .onConflict((oc) => oc.column('attempt_key').doNothing())
          .returningAll()
          .execute();
        for (const row of inserted) byKey.set(row.attempt_key, toAttempt(row));
        // Keys recorded before (a run that crashed): their attempts as they were.
        const earlier = part.filter((a) => !byKey.has(a.key)).map((a) => a.key);
        if (earlier.length === 0) continue;
        for (const row of await db.selectFrom('charge_attempts').selectAll().where('attempt_key', 'in', earlier).execute())
          byKey.set(row.attempt_key, toAttempt(row));
      }
      return byKey;
    },

    async apply(writes) {
      // Invoice numbers: one reservation per vendor and environment in the batch, in batch order.
      const entries = writes.flatMap((w) => (w.entry ? [w.entry] : []));
      const groups = new Map<string, typeof entries>();
      for (const e of entries) {
        const key = `${e.vendorId}\u0000${e.environment}`;
        const group = groups.get(key);
        if (group) group.push(e);
        else groups.set(key, [e]);
      }
      const rows = [];
      for (const group of groups.values()) {
        let next = await reserveInvoiceNumbers(db, group[0]!.vendorId, group[0]!.environment, group.length);
        for (const e of group) rows.push(toEntryRow(e, next++));
      }
      for (const part of chunks(rows)) await db.insertInto('ledger_entries').values(part).execute();

      const attempts = writes.flatMap((w) => (w.attempt ? [{ ...w.attempt, transactionId: w.transactionId }] : []));
      for (const part of chunks(attempts)) {
        const values = valuesTable(
          ['id', 'status', 'reference', 'code', 'at', 'tx'],
          part.map((a) => [sql`${a.id}`, sql`${a.status}`, sql`${a.gatewayReference}`, sql`${a.failureCode}`, sql`${a.updatedAt}`, sql`${a.transactionId}`]),
        );
        await sql`${values} update charge_attempts set status = v.status, gateway_reference = v.reference, failure_code = v.code,
          updated_at = v.at, transaction_id = v.tx from v where charge_attempts.id = v.id`.execute(db);
      }

      for (const part of chunks(writes)) {
        const values = valuesTable(
          ['id', 'status', 'who', 'last_charge', 'next_charge', 'period', 'failed', 'lease', 'flag', 'changed_at'],
          part.map((w) => [
            sql`${w.transactionId}`,
            sql`${w.state.status}`,
            sql`${w.state.whoCanceled}`,
            sql`${w.state.lastCharge}`,
            sql`${w.state.nextCharge}`,
            int(w.state.period),
            int(w.state.failedAttempts),
            sql`${w.state.leaseUntil}`,
            sql`${w.change?.flag ?? null}`,
            sql`${w.change?.at ?? null}`,
          ]),
        );
        // A change flag puts the row (back) in the changed feed, as transactions.update does.
        await sql`${values} update transactions set status = v.status, who_canceled = v.who, last_charge = v.last_charge,
          next_charge = v.next_charge, billing_period = v.period, failed_attempts = v.failed, billing_lease_until = v.lease,
          change_flag = coalesce(v.flag, transactions.change_flag), changed_at = coalesce(v.changed_at, transactions.changed_at),
          feed_pending = case when v.flag is null then transactions.feed_pending else 1 end,
          change_version = transactions.change_version + case when v.flag is null then 0 else 1 end,
          cancelled_at = ${cancelledAtAfter(sql`v.status`, sql`v.changed_at`)}
          from v where transactions.id = v.id`.execute(db);
      }
    },

    async expireOffers(before, sandboxVendorId) {
      let query = db
        .updateTable('customized_products')
        .set({ expired: 1, user_mail: null, user_first_name: null, user_last_name: null, payload: null })
        .where('expired', '=', 0)
        .where('expires_at', 'is not', null)
        .where('expires_at', '<=', before);
      if (sandboxVendorId) query = query.$call(whereScope({ vendorId: sandboxVendorId, environment: 'sandbox' }));
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}

export function sandboxClocksStore(db: Executor): Repositories['sandboxClocks'] {
  return {
    async list() {
      const rows = await db.selectFrom('sandbox_clocks').select(['vendor_id', 'offset_ms']).execute();
      return rows.map((r) => ({ vendorId: r.vendor_id, offsetMs: Number(r.offset_ms) }));
    },
    async set(vendorId, offsetMs, at) {
      await db
        .insertInto('sandbox_clocks')
        .values({ vendor_id: vendorId, offset_ms: offsetMs, updated_at: at })
        .onConflict((oc) => oc.column('vendor_id').doUpdateSet({ offset_ms: offsetMs, updated_at: at }))
        .execute();
    },
    async backlog(vendorId, dueBy, limit) {
      // On the per-vendor due index; counting stops at `limit` rows, so a large backlog costs no more to read.
      const due = db
        .selectFrom('transactions')
        .select('next_charge')
        .$call(whereScope({ vendorId, environment: 'sandbox' }))
        .where('next_charge', 'is not', null)
        .where('next_charge', '<=', dueBy)
        .orderBy('next_charge')
        .limit(limit)
        .as('due');
      const row = await db
        .selectFrom(due)
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('due.next_charge').as('oldest')])
        .executeTakeFirstOrThrow();
      return { due: Number(row.n), oldestDue: row.oldest ?? null };
    },
  };
}
