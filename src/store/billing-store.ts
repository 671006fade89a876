import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely';
import { LIVE_SUBSCRIPTION_STATUSES } from '../domain/model.ts';
import type { AttemptOf, BillingState, BillingWrite, Repositories } from '../domain/ports.ts';
import { ATTEMPT_COLUMNS, toAttempt, toAttemptRow } from './attempts-store.ts';
import type { DialectName, Executor } from './database.ts';
import { claimDue } from './billing-claims.ts';
import { ENTRY_COLUMNS, reserveInvoiceNumbers, toEntryRow } from './ledger-store.ts';
import { precompiledRows } from './precompiled.ts';
import type { ChargeAttemptsTable, LedgerEntriesTable, TransactionsTable } from './schema.ts';
import { whereScope } from './scope.ts';
import { cancelledAtAfter } from './transaction-rows.ts';

/** Rows per statement: far below both stores' limits on bound parameters. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): (readonly T[])[] {
  if (items.length <= CHUNK) return [items];
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

const int = (value: unknown) => sql`cast(${value} as integer)`;

/** `WITH v(columns) AS (VALUES ...)`: many rows' values in one statement, on both stores. */
function valuesTable(columns: string[], rows: RawBuilder<unknown>[][]) {
  const tuples = rows.map((row) => sql`(${sql.join(row)})`);
  return sql`with v(${sql.join(columns.map((c) => sql.id(c)))}) as (values ${sql.join(tuples)})`;
}

/** Raw SQL as a statement `precompiledRows` can compile. */
const statement = <Out>(db: Executor, raw: RawBuilder<Out>) => ({ compile: () => raw.compile(db) });

/*
 * The statements billing runs for every batch, each built and compiled once per store and batch
 * size (src/store/precompiled.ts): Kysely building a 500-row statement anew for every batch cost
 * more than the database took to run it.
 */

const STATE_COLUMNS = [
  'id',
  'status',
  'who_canceled',
  'last_charge',
  'next_charge',
  'charge_frequency',
  'billing_anchor',
  'billing_anchor_period',
  'billing_period',
  'failed_attempts',
] as const;

const lockStatement = (dialect: DialectName) =>
  precompiledRows<{ id: string }, Pick<Selectable<TransactionsTable>, (typeof STATE_COLUMNS)[number]>>(
    ['id'],
    (db, rows) => {
      const query = db
        .selectFrom('transactions')
        .select(STATE_COLUMNS)
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        );
      return dialect === 'postgres' ? query.forUpdate() : query;
    },
  );
const locks = { sqlite: lockStatement('sqlite'), postgres: lockStatement('postgres') };

/*
 * A batch's new rows, in one statement. SQLite: a VALUES list, compiled once per row count.
 * PostgreSQL: the rows as one JSON value, read back as rows of the table (json_populate_recordset):
 * a VALUES list of 500 rows binds thousands of parameters, which PostgreSQL parsed and planned anew
 * for every batch at a cost of about a fifth of the insert.
 */
function jsonInsert(table: 'charge_attempts' | 'ledger_entries', columns: readonly string[], rows: readonly object[]) {
  const list = sql.join(columns.map((c) => sql.id(c)));
  return sql`insert into ${sql.table(table)} (${list})
    select ${list} from json_populate_recordset(null::${sql.table(table)}, cast(${JSON.stringify(rows)} as json))`;
}

const attemptValues = precompiledRows<Insertable<ChargeAttemptsTable>, { attempt_key: string }>(
  ATTEMPT_COLUMNS,
  (db, rows) =>
    db
      .insertInto('charge_attempts')
      .values(rows)
      .onConflict((oc) => oc.column('attempt_key').doNothing())
      .returning('attempt_key'),
);

/** New attempts are inserted; a key recorded before keeps its attempt. Returns the keys inserted. */
async function insertAttempts(
  db: Executor,
  dialect: DialectName,
  rows: readonly Insertable<ChargeAttemptsTable>[],
): Promise<{ attempt_key: string }[]> {
  if (dialect === 'sqlite') return attemptValues(db, dialect, rows);
  const inserted = await sql<{ attempt_key: string }>`${jsonInsert('charge_attempts', ATTEMPT_COLUMNS, rows)}
    on conflict (attempt_key) do nothing returning attempt_key`.execute(db);
  return inserted.rows;
}

const entryValues = precompiledRows<LedgerEntriesTable, never>(ENTRY_COLUMNS, (db, rows) =>
  db.insertInto('ledger_entries').values(rows),
);

async function insertEntries(db: Executor, dialect: DialectName, rows: readonly LedgerEntriesTable[]): Promise<void> {
  if (dialect === 'sqlite') await entryValues(db, dialect, rows);
  else await jsonInsert('ledger_entries', ENTRY_COLUMNS, rows).execute(db);
}

type AttemptOutcome = NonNullable<BillingWrite['attempt']>;
/**
 * A billing attempt's outcome; its transaction is the one it was recorded with. Only an open attempt
 * settles: a worker stalled past its lease must not reopen what the worker that took the attempt up settled.
 */
const settleAttempts = precompiledRows<AttemptOutcome, never>(
  ['id', 'status', 'gatewayReference', 'failureCode', 'updatedAt'],
  (db, rows) =>
    statement(
      db,
      sql`${valuesTable(
        ['id', 'status', 'reference', 'code', 'at'],
        rows.map((a) => [
          sql`${a.id}`,
          sql`${a.status}`,
          sql`${a.gatewayReference}`,
          sql`${a.failureCode}`,
          sql`${a.updatedAt}`,
        ]),
      )} update charge_attempts set status = v.status, gateway_reference = v.reference, failure_code = v.code,
      updated_at = v.at from v where charge_attempts.id = v.id and charge_attempts.status in ('PENDING', 'UNKNOWN')`,
    ),
);

type StateRow = BillingWrite['state'] & { transactionId: string; flag: string | null; changedAt: string | null };
const writeStates = precompiledRows<StateRow, never>(
  [
    'transactionId',
    'status',
    'whoCanceled',
    'lastCharge',
    'nextCharge',
    'period',
    'failedAttempts',
    'leaseUntil',
    'flag',
    'changedAt',
  ],
  (db, rows) => {
    const values = valuesTable(
      ['id', 'status', 'who', 'last_charge', 'next_charge', 'period', 'failed', 'lease', 'flag', 'changed_at'],
      rows.map((w) => [
        sql`${w.transactionId}`,
        sql`${w.status}`,
        sql`${w.whoCanceled}`,
        sql`${w.lastCharge}`,
        sql`${w.nextCharge}`,
        int(w.period),
        int(w.failedAttempts),
        sql`${w.leaseUntil}`,
        sql`${w.flag}`,
        sql`${w.changedAt}`,
      ]),
    );
    // A change flag puts the row (back) in the changed feed, as transactions.update does.
    return statement(
      db,
      sql`${values} update transactions set status = v.status, who_canceled = v.who, last_charge = v.last_charge,
        next_charge = v.next_charge, billing_period = v.period, failed_attempts = v.failed, billing_lease_until = v.lease,
        change_flag = coalesce(v.flag, transactions.change_flag), changed_at = coalesce(v.changed_at, transactions.changed_at),
        feed_pending = case when v.flag is null then transactions.feed_pending else 1 end,
        change_version = transactions.change_version + case when v.flag is null then 0 else 1 end,
        cancelled_at = ${cancelledAtAfter(sql`v.status`, sql`v.changed_at`)}
        from v where transactions.id = v.id`,
    );
  },
);

/** The billing state of each of `ids`, read under lock (PostgreSQL; SQLite's writer holds the database). */
async function lockMany(
  db: Executor,
  dialect: DialectName,
  ids: readonly string[],
): Promise<Map<string, BillingState>> {
  const found = new Map<string, BillingState>();
  for (const part of chunks(ids)) {
    const rows = await locks[dialect](
      db,
      dialect,
      part.map((id) => ({ id })),
    );
    for (const row of rows) {
      found.set(row.id, {
        status: row.status as BillingState['status'],
        whoCanceled: row.who_canceled as BillingState['whoCanceled'],
        lastCharge: row.last_charge,
        nextCharge: row.next_charge,
        chargeFrequency: row.charge_frequency as BillingState['chargeFrequency'],
        billing: row.billing_anchor
          ? {
              anchor: row.billing_anchor,
              period: Number(row.billing_period),
              failedAttempts: Number(row.failed_attempts),
              anchorPeriod: Number(row.billing_anchor_period),
            }
          : undefined,
      });
    }
  }
  return found;
}

/** A batch's ledger entries (with their invoice numbers), attempt outcomes and new billing states. */
async function applyWrites(db: Executor, dialect: DialectName, writes: readonly BillingWrite[]): Promise<void> {
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
  for (const part of chunks(rows)) if (part.length > 0) await insertEntries(db, dialect, part);

  const attempts = writes.flatMap((w) => (w.attempt ? [w.attempt] : []));
  for (const part of chunks(attempts)) if (part.length > 0) await settleAttempts(db, dialect, part);

  const states = writes.map((w) => ({
    ...w.state,
    transactionId: w.transactionId,
    flag: w.change?.flag ?? null,
    changedAt: w.change?.at ?? null,
  }));
  for (const part of chunks(states)) if (part.length > 0) await writeStates(db, dialect, part);
}

/**
 * What the billing worker reads and writes. Claiming and writing are batched: a batch of due
 * subscriptions costs a handful of statements, whatever its size, so the worker keeps up with
 * the store's raw write rate instead of its round-trip latency.
 */
export function billingStore(db: Executor, dialect: DialectName): Repositories['billing'] {
  return {
    claimDue: (q) => claimDue(db, dialect, q),

    lockMany: (ids) => lockMany(db, dialect, ids),

    async overdueOf(scope, dueBy) {
      const rows = await db
        .selectFrom('transactions')
        .select('id')
        .$call(whereScope(scope))
        .where('status', 'in', LIVE_SUBSCRIPTION_STATUSES)
        .where('next_charge', 'is not', null)
        .where('next_charge', '<=', dueBy)
        .where((eb) => eb.or([eb('billing_lease_until', 'is', null), eb('billing_lease_until', '<', dueBy)]))
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('charge_attempts')
                .select('charge_attempts.id')
                .whereRef('charge_attempts.transaction_id', '=', 'transactions.id')
                .where('charge_attempts.kind', '=', 'RENEWAL')
                .where('charge_attempts.status', 'in', ['PENDING', 'UNKNOWN']),
            ),
          ),
        )
        .execute();
      return rows.map((row) => row.id);
    },

    async recordAttempts(attempts) {
      const byKey = new Map<string, (typeof attempts)[number]>();
      for (const part of chunks(attempts)) {
        if (part.length === 0) continue;
        const inserted = new Set(
          (await insertAttempts(db, dialect, part.map(toAttemptRow))).map((row) => row.attempt_key),
        );
        // Keys recorded before (a run that crashed): their attempts as they were.
        const earlier: string[] = [];
        for (const a of part) {
          if (inserted.has(a.key)) byKey.set(a.key, a);
          else earlier.push(a.key);
        }
        if (earlier.length === 0) continue;
        for (const row of await db
          .selectFrom('charge_attempts')
          .selectAll()
          .where('attempt_key', 'in', earlier)
          .execute())
          byKey.set(row.attempt_key, toAttempt(row) as AttemptOf<'RENEWAL'>);
      }
      return byKey;
    },

    apply: (writes) => applyWrites(db, dialect, writes),

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
