import type { Repositories, WebhookEvent, WebhookSnapshot } from '../domain/ports.ts';
import type { ChangeFlag, Environment, LedgerEntry } from '../domain/model.ts';
import { webhookId } from '../domain/webhooks/index.ts';
import type { Executor } from './database.ts';
import { toTransaction } from './transaction-rows.ts';
import { toEventRow } from './webhooks-store.ts';

/**
 * The webhook outbox is written in the database transaction of the change (docs/decisions.md §27):
 * the repositories of a transaction note each transaction that entered the changed feed and the
 * ledger entry booked for it, and before the commit `enqueueChanges` writes one event per change and
 * enabled endpoint of its vendor and environment, with the transaction as it is then. A vendor with
 * no endpoint costs a lookup in the set of a few Map entries and, when nothing at all has an
 * endpoint, one indexed query per database transaction that changed something.
 */
export interface ChangeLog {
  changed: Set<string>;
  entries: Map<string, LedgerEntry>;
}

export const newChangeLog = (): ChangeLog => ({ changed: new Set(), entries: new Map() });

type Flush = (log: ChangeLog) => Promise<void>;

/**
 * Runs `write` noting into the transaction's log; outside a transaction (`log` undefined) into a log
 * of its own, written right after.
 */
async function noted<T>(log: ChangeLog | undefined, flush: Flush, write: (log: ChangeLog) => Promise<T>): Promise<T> {
  if (log) return write(log);
  const own = newChangeLog();
  const result = await write(own);
  await flush(own);
  return result;
}

export function notingTransactions(
  repo: Repositories['transactions'],
  log: ChangeLog | undefined,
  flush: Flush,
): Repositories['transactions'] {
  return {
    ...repo,
    insert: (t) =>
      noted(log, flush, async (into) => {
        await repo.insert(t);
        if (t.changeFlag) into.changed.add(t.id);
      }),
    update: (scope, id, patch, change) =>
      noted(log, flush, async (into) => {
        await repo.update(scope, id, patch, change);
        if (change) into.changed.add(id);
      }),
  };
}

export function notingEntries(
  repo: Repositories['entries'],
  log: ChangeLog | undefined,
  flush: Flush,
): Repositories['entries'] {
  return {
    ...repo,
    insert: (entry) =>
      noted(log, flush, async (into) => {
        await repo.insert(entry);
        into.entries.set(entry.transactionId, entry);
      }),
    insertReversal: (...entries) =>
      noted(log, flush, async (into) => {
        await repo.insertReversal(...entries);
        for (const entry of entries) into.entries.set(entry.transactionId, entry);
      }),
  };
}

export function notingBilling(
  repo: Repositories['billing'],
  log: ChangeLog | undefined,
  flush: Flush,
): Repositories['billing'] {
  return {
    ...repo,
    apply: (writes) =>
      noted(log, flush, async (into) => {
        await repo.apply(writes);
        for (const w of writes) {
          if (w.entry) into.entries.set(w.transactionId, w.entry);
          if (w.change) into.changed.add(w.transactionId);
        }
      }),
  };
}

/** Writes the events of the noted changes for every enabled endpoint of their vendors. */
export async function enqueueChanges(db: Executor, log: ChangeLog): Promise<void> {
  if (log.changed.size === 0) return;
  const anyEndpoint = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('enabled', '=', 1)
    .limit(1)
    .executeTakeFirst();
  if (!anyEndpoint) return;
  const ids = [...log.changed];
  const createdAt = new Date().toISOString();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('transactions')
      .innerJoin('webhook_endpoints as w', (join) =>
        join
          .onRef('w.vendor_id', '=', 'transactions.vendor_id')
          .onRef('w.environment', '=', 'transactions.environment'),
      )
      .selectAll('transactions')
      .select('w.id as endpoint_id')
      .where('w.enabled', '=', 1)
      .where('transactions.id', 'in', ids.slice(i, i + 500))
      .execute();
    if (rows.length === 0) continue;
    const events = rows.map((row): WebhookEvent => {
      const snapshot: WebhookSnapshot = { transaction: toTransaction(row), entry: log.entries.get(row.id) ?? null };
      return {
        id: webhookId('evt_'),
        endpointId: row.endpoint_id,
        scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
        transactionId: row.id,
        seq: Number(row.change_version),
        kind: row.change_flag as ChangeFlag,
        payload: JSON.stringify(snapshot),
        status: 'PENDING',
        tries: 0,
        // Due at once, whatever the clock: '' sorts before every time.
        nextTryAt: '',
        giveUpAt: '',
        lastStatus: null,
        lastError: null,
        lastTryAt: null,
        createdAt,
        deliveredAt: null,
      };
    });
    await db.insertInto('webhook_events').values(events.map(toEventRow)).execute();
  }
}
