import type { SelectQueryBuilder } from 'kysely';
import type { Repositories } from '../domain/ports.ts';
import { OPEN_STATUSES } from './attempts-store.ts';
import type { Executor } from './database.ts';
import type { Schema } from './schema.ts';

/**
 * What an operator watches (GET /metrics): how much work waits. Each count reads a partial index and
 * stops at `cap` rows, so a scrape costs the same however large a backlog grows.
 */
export function operationsStore(db: Executor): Repositories['operations'] {
  const count = async <T extends keyof Schema>(rows: SelectQueryBuilder<Schema, T, { id: string }>) =>
    Number(
      (
        await db
          .selectFrom(rows.as('rows'))
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const due = (now: string, cap: number) =>
    db
      .selectFrom('transactions')
      .select('id')
      .where('next_charge', 'is not', null)
      .where('next_charge', '<=', now)
      .orderBy('next_charge')
      .limit(cap);
  return {
    async waiting(now, cap) {
      const [billingDue, openAttempts, eventsWaiting, emailsWaiting] = await Promise.all([
        count(due(now, cap)),
        count(db.selectFrom('charge_attempts').select('id').where('status', 'in', OPEN_STATUSES).limit(cap)),
        count(db.selectFrom('processor_events').select('id').where('processed_at', 'is', null).limit(cap)),
        count(db.selectFrom('customer_emails').select('id').where('status', '=', 'PENDING').limit(cap)),
      ]);
      return { billingDue, openAttempts, eventsWaiting, emailsWaiting };
    },
  };
}
