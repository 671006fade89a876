import { sql, type Selectable } from 'kysely';
import type { ChangeFlag, Environment } from '../domain/model.ts';
import type { Repositories, StoredWebhookEndpoint, WebhookEvent } from '../domain/ports.ts';
import type { DialectName, Executor } from './database.ts';
import type { WebhookEndpointsTable, WebhookEventsTable } from './schema-webhooks.ts';
import { leaseDue } from './outbox-lease.ts';
import { whereScope } from './scope.ts';

type WebhookRepository = Repositories['webhooks'];

function toEndpoint(row: Selectable<WebhookEndpointsTable>): StoredWebhookEndpoint {
  return {
    id: row.id,
    scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
    url: row.url,
    enabled: Number(row.enabled) === 1,
    failingSince: row.failing_since,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    sealedSecret: row.secret,
  };
}

function toEvent(row: Selectable<WebhookEventsTable>): WebhookEvent {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
    transactionId: row.transaction_id,
    seq: Number(row.seq),
    kind: row.type as ChangeFlag | 'TEST',
    payload: row.payload,
    status: row.status as WebhookEvent['status'],
    tries: Number(row.tries),
    nextTryAt: row.next_try_at,
    giveUpAt: row.give_up_at,
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    lastTryAt: row.last_try_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

export function toEventRow(e: WebhookEvent): WebhookEventsTable {
  return {
    id: e.id,
    endpoint_id: e.endpointId,
    vendor_id: e.scope.vendorId,
    environment: e.scope.environment,
    transaction_id: e.transactionId,
    seq: e.seq,
    type: e.kind,
    payload: e.payload,
    status: e.status,
    tries: e.tries,
    next_try_at: e.nextTryAt,
    give_up_at: e.giveUpAt,
    lease_owner: null,
    lease_until: null,
    last_status: e.lastStatus,
    last_error: e.lastError,
    last_try_at: e.lastTryAt,
    created_at: e.createdAt,
    delivered_at: e.deliveredAt,
  };
}

/** The endpoints: added, listed, removed, their failures counted and the endpoint disabled. */
function endpointsStore(
  db: Executor,
): Pick<WebhookRepository, 'addEndpoint' | 'endpoints' | 'endpoint' | 'removeEndpoint'> {
  return {
    async addEndpoint(e) {
      await db
        .insertInto('webhook_endpoints')
        .values({
          id: e.id,
          vendor_id: e.scope.vendorId,
          environment: e.scope.environment,
          url: e.url,
          secret: e.sealedSecret,
          enabled: e.enabled ? 1 : 0,
          failing_since: null,
          disabled_at: null,
          disabled_reason: null,
          created_at: e.createdAt,
          removed_at: null,
        })
        .execute();
    },
    async endpoints(scope) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .$call(whereScope(scope))
        .where('removed_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toEndpoint);
    },
    async endpoint(id) {
      const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toEndpoint(row);
    },
    async removeEndpoint(scope, id, at, reason) {
      const result = await db
        .updateTable('webhook_endpoints')
        .set({ removed_at: at, enabled: 0 })
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .$call(whereScope(scope))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await db
        .updateTable('webhook_events')
        .set({ status: 'FAILED', last_error: reason, lease_owner: null, lease_until: null })
        .where('endpoint_id', '=', id)
        .where('status', '=', 'PENDING')
        .execute();
      return true;
    },
  };
}

/** An endpoint's health: its failures counted, disabled after 3 days of them, enabled again by its vendor. */
function endpointHealthStore(
  db: Executor,
): Pick<WebhookRepository, 'recordTry' | 'disableEndpoint' | 'enableEndpoint'> {
  return {
    async recordTry(id, ok, at) {
      const row = await db
        .updateTable('webhook_endpoints')
        .set({ failing_since: ok ? null : sql<string>`coalesce(failing_since, ${at})` })
        .where('id', '=', id)
        .returning('failing_since')
        .executeTakeFirst();
      return row?.failing_since ?? null;
    },
    async enableEndpoint(scope, id) {
      const result = await db
        .updateTable('webhook_endpoints')
        .set({ enabled: 1, failing_since: null, disabled_at: null, disabled_reason: null })
        .where('id', '=', id)
        .where('enabled', '=', 0)
        .where('removed_at', 'is', null)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async disableEndpoint(id, at, reason) {
      const result = await db
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_at: at, disabled_reason: reason })
        .where('id', '=', id)
        .where('enabled', '=', 1)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/** Sending: due events claimed under a lease, in order per endpoint and transaction; only the lease's owner settles one. */
function sendingStore(db: Executor, dialect: DialectName): Pick<WebhookRepository, 'claim' | 'settle' | 'release'> {
  return {
    async claim(q) {
      const due = db
        .selectFrom('webhook_events as e')
        .select('e.id')
        .where('e.status', '=', 'PENDING')
        .where('e.next_try_at', '<=', q.now)
        .where((eb) => eb.or([eb('e.lease_until', 'is', null), eb('e.lease_until', '<', q.now)]))
        .where(({ exists, not, selectFrom }) =>
          exists(
            selectFrom('webhook_endpoints')
              .select('webhook_endpoints.id')
              .whereRef('webhook_endpoints.id', '=', 'e.endpoint_id')
              .where('webhook_endpoints.enabled', '=', 1),
          ).and(
            // A later event of a transaction waits while an earlier one for the same endpoint does.
            not(
              exists(
                selectFrom('webhook_events as p')
                  .select('p.id')
                  .whereRef('p.endpoint_id', '=', 'e.endpoint_id')
                  .whereRef('p.transaction_id', '=', 'e.transaction_id')
                  .where('p.status', '=', 'PENDING')
                  .whereRef('p.seq', '<', 'e.seq'),
              ),
            ),
          ),
        )
        .orderBy('e.next_try_at')
        .orderBy('e.id')
        .limit(q.limit);
      const rows = await leaseDue(db, dialect, 'webhook_events', due, q);
      return rows.map(toEvent).sort((a, b) => a.nextTryAt.localeCompare(b.nextTryAt) || a.id.localeCompare(b.id));
    },
    async settle(id, owner, o) {
      const result = await db
        .updateTable('webhook_events')
        .set({
          status: o.status,
          tries: o.tries,
          next_try_at: o.nextTryAt,
          give_up_at: o.giveUpAt,
          last_status: o.lastStatus,
          last_error: o.lastError,
          last_try_at: o.lastTryAt,
          delivered_at: o.deliveredAt,
          lease_owner: null,
          lease_until: null,
        })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async release(ids, owner) {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_events')
        .set({ lease_owner: null, lease_until: null })
        .where('id', 'in', ids)
        .where('lease_owner', '=', owner)
        .execute();
    },
  };
}

/** What the panel reads and replays, and the events the CLI's test writes. */
function logStore(db: Executor): Pick<WebhookRepository, 'insertEvents' | 'log' | 'find' | 'replay' | 'purgeSettled'> {
  return {
    async insertEvents(events) {
      if (events.length > 0) await db.insertInto('webhook_events').values(events.map(toEventRow)).execute();
    },
    async log(scope, q) {
      let query = db
        .selectFrom('webhook_events')
        .selectAll()
        .$call(whereScope(scope))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit);
      if (q.endpointId !== undefined) query = query.where('endpoint_id', '=', q.endpointId);
      return (await query.execute()).map(toEvent);
    },
    async find(scope, id) {
      const row = await db
        .selectFrom('webhook_events')
        .selectAll()
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return row && toEvent(row);
    },
    async replay(scope, id, now) {
      const result = await db
        .updateTable('webhook_events')
        .set({ status: 'PENDING', tries: 0, next_try_at: now, give_up_at: '', lease_owner: null, lease_until: null })
        .where('id', '=', id)
        .where('status', '<>', 'PENDING')
        .$call(whereScope(scope))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async purgeSettled(before) {
      const result = await db
        .deleteFrom('webhook_events')
        .where('status', 'in', ['DELIVERED', 'FAILED'])
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export function webhooksStore(db: Executor, dialect: DialectName): WebhookRepository {
  return { ...endpointsStore(db), ...endpointHealthStore(db), ...sendingStore(db, dialect), ...logStore(db) };
}
