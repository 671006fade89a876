import { sql, type Selectable } from 'kysely';
import type { CustomerEmailKind, Environment } from '../domain/model.ts';
import type { OutboxEmail, Repositories } from '../domain/ports.ts';
import type { DialectName, Executor } from './database.ts';
import type { CustomerEmailsTable } from './schema.ts';
import { leaseDue } from './outbox-lease.ts';
import { whereScope } from './scope.ts';

function toEmail(row: Selectable<CustomerEmailsTable>): OutboxEmail {
  return {
    id: row.id,
    scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
    kind: row.kind as CustomerEmailKind,
    eventKey: row.event_key,
    facts: JSON.parse(row.facts) as OutboxEmail['facts'],
    status: row.status as OutboxEmail['status'],
    tries: Number(row.tries),
    nextTryAt: row.next_try_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
  };
}

type OutboxRepository = Repositories['customerEmails'];

/** Queueing: one e-mail per event key, whoever queues it first. */
function outboxQueue(db: Executor): Pick<OutboxRepository, 'enqueue'> {
  return {
    async enqueue(emails) {
      if (emails.length === 0) return;
      await db
        .insertInto('customer_emails')
        .values(
          emails.map((e) => ({
            id: e.id,
            vendor_id: e.scope.vendorId,
            environment: e.scope.environment,
            kind: e.kind,
            event_key: e.eventKey,
            transaction_id: e.facts.transactionId,
            facts: JSON.stringify(e.facts),
            status: e.status,
            tries: e.tries,
            next_try_at: e.nextTryAt,
            lease_owner: null,
            lease_until: null,
            last_error: e.lastError,
            created_at: e.createdAt,
            sent_at: e.sentAt,
          })),
        )
        // The event's key is taken: its e-mail is already queued (or sent), and stays the only one.
        .onConflict((oc) => oc.column('event_key').doNothing())
        .execute();
    },
  };
}

/** Sending: the sender claims due e-mails under a lease, and only the lease's owner settles one. */
function outboxSending(db: Executor, dialect: DialectName): Pick<OutboxRepository, 'claim' | 'settle'> {
  return {
    async claim(q) {
      const due = db
        .selectFrom('customer_emails')
        .select('id')
        .where('status', '=', 'PENDING')
        .where('next_try_at', '<=', q.now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', q.now)]))
        .orderBy('next_try_at')
        .orderBy('id')
        .limit(q.limit);
      const rows = await leaseDue(db, dialect, 'customer_emails', due, q);
      return rows.map(toEmail).sort((a, b) => a.nextTryAt.localeCompare(b.nextTryAt) || a.id.localeCompare(b.id));
    },

    async settle(id, owner, outcome) {
      const result = await db
        .updateTable('customer_emails')
        .set({
          status: outcome.status,
          tries: outcome.tries,
          next_try_at: outcome.nextTryAt,
          last_error: outcome.lastError,
          sent_at: outcome.sentAt,
          lease_owner: null,
          lease_until: null,
        })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/** What the panel lists, and the notices (trial ending, yearly renewal) due to be queued. */
function outboxReads(db: Executor): Pick<OutboxRepository, 'list' | 'noticesDue'> {
  return {
    async list(scope, limit) {
      const rows = await db
        .selectFrom('customer_emails')
        .selectAll('customer_emails')
        .select((eb) =>
          eb
            .selectFrom('transactions')
            .select('transactions.email')
            .whereRef('transactions.id', '=', 'customer_emails.transaction_id')
            .as('recipient'),
        )
        .where('customer_emails.vendor_id', '=', scope.vendorId)
        .where('customer_emails.environment', '=', scope.environment)
        .orderBy('customer_emails.created_at', 'desc')
        .orderBy('customer_emails.id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...toEmail(row), recipient: row.recipient ?? null }));
    },

    async noticesDue(q) {
      const key = (kind: string) => sql<string>`${kind} || ':' || transactions.id || ':' || transactions.next_charge`;
      const notQueued = (kind: string) =>
        sql<boolean>`not exists (select 1 from customer_emails where customer_emails.event_key = ${key(kind)})`;
      let query = db
        .selectFrom('transactions')
        .select(['id', 'vendor_id', 'environment', 'status', 'next_charge'])
        .where('next_charge', 'is not', null)
        .where('next_charge', '>', q.now)
        .where('next_charge', '<=', q.yearlyUntil)
        // No notice of a charge the operator stopped (docs/decisions.md §24); sent once they go on, if still ahead.
        .where((eb) =>
          eb('vendor_id', 'not in', eb.selectFrom('vendors').select('vendors.id').where('renewals_stopped', '=', 1)),
        )
        .where((eb) =>
          eb.or([
            eb.and([
              eb('status', '=', 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL'),
              eb('next_charge', '<=', q.trialUntil),
              notQueued('TRIAL_ENDING'),
            ]),
            eb.and([
              eb('status', '=', 'SUBSCRIPTION_STATUS_ACTIVE'),
              eb('charge_frequency', '=', 'YEARLY'),
              eb('failed_attempts', '=', 0),
              notQueued('RENEWAL_UPCOMING'),
            ]),
          ]),
        );
      if (q.sandboxVendorId) query = query.$call(whereScope({ vendorId: q.sandboxVendorId, environment: 'sandbox' }));
      const rows = await query.orderBy('next_charge').orderBy('id').limit(q.limit).execute();
      return rows.map((row) => ({
        kind:
          row.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' ? ('TRIAL_ENDING' as const) : ('RENEWAL_UPCOMING' as const),
        scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
        transactionId: row.id,
        nextCharge: row.next_charge!,
      }));
    },
  };
}

/** The customer e-mail outbox (migration 0018). */
export function customerEmailsStore(db: Executor, dialect: DialectName): OutboxRepository {
  return { ...outboxQueue(db), ...outboxSending(db, dialect), ...outboxReads(db) };
}
