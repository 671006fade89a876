import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { DialectName, Executor } from './database.ts';
import type { Schema } from './schema.ts';

/** The outboxes whose rows a worker leases: customer e-mails and webhook events. */
type OutboxTable = 'customer_emails' | 'webhook_events';

/** The columns every outbox has for its leases (what the one statement below touches). */
interface LeaseColumns {
  id: string;
  status: string;
  lease_owner: string | null;
  lease_until: string | null;
}

/**
 * Leases the rows `due` selects to `owner` until `leaseUntil`, and returns them. PostgreSQL: the locking
 * subquery is run once, as an array. Written as `id in (subquery)`, the planner may rescan it for every
 * row (a nested-loop semi-join), each rescan skipping the rows the scan before locked, and so claim every
 * due row, not `limit`. The row is checked again itself: on SQLite this is the guard against a claim
 * between the select and the update.
 */
export async function leaseDue<T extends OutboxTable, DB, TB extends keyof DB>(
  db: Executor,
  dialect: DialectName,
  table: T,
  due: SelectQueryBuilder<DB, TB, { id: string }>,
  q: { now: string; owner: string; leaseUntil: string },
): Promise<Selectable<Schema[T]>[]> {
  const locked = dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
  // Both outboxes through one statement: Kysely cannot type a table chosen at run time, so the table is
  // seen by the lease columns they share.
  const outbox = db as unknown as Kysely<{ outbox: LeaseColumns }>;
  const ids = locked as unknown as SelectQueryBuilder<{ outbox: LeaseColumns }, 'outbox', { id: string }>;
  const rows = await outbox
    .updateTable(table as unknown as 'outbox')
    .set({ lease_owner: q.owner, lease_until: q.leaseUntil })
    .where(dialect === 'postgres' ? sql<boolean>`id = any(array(${ids}))` : (eb) => eb('id', 'in', ids))
    .where('status', '=', 'PENDING')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', q.now)]))
    .returningAll()
    .execute();
  return rows as unknown as Selectable<Schema[T]>[];
}
