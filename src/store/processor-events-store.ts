import type { Selectable } from 'kysely';
import type { Environment } from '../domain/model.ts';
import type { Repositories, StoredProcessorEvent } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import type { ProcessorEventsTable } from './schema.ts';

function toEvent(row: Selectable<ProcessorEventsTable>): StoredProcessorEvent {
  return {
    id: row.id,
    provider: row.provider,
    environment: row.environment as Environment,
    eventId: row.event_id,
    type: row.type,
    createdAt: row.created_at,
    payload: row.payload,
    receivedAt: row.received_at,
    processedAt: row.processed_at,
    tries: Number(row.tries),
    lastError: row.last_error,
    nextTryAt: row.next_try_at,
  };
}

/** Inbound processor events: stored once by id, then marked processed, or failed with a next try. */
export function processorEventsStore(db: Executor): Repositories['processorEvents'] {
  return {
    async record(e) {
      const result = await db
        .insertInto('processor_events')
        .values({
          id: e.id,
          provider: e.provider,
          environment: e.environment,
          event_id: e.eventId,
          type: e.type,
          created_at: e.createdAt,
          payload: e.payload,
          received_at: e.receivedAt,
          processed_at: null,
          tries: 0,
          last_error: null,
          next_try_at: e.receivedAt,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return { fresh: Number(result.numInsertedOrUpdatedRows ?? 0) > 0 };
    },
    async listDue(now, limit) {
      const rows = await db
        .selectFrom('processor_events')
        .selectAll()
        .where('processed_at', 'is', null)
        .where('next_try_at', '<=', now)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toEvent);
    },
    async markProcessed(id, at, refusal) {
      await db
        .updateTable('processor_events')
        .set({ processed_at: at, last_error: refusal ?? null })
        .where('id', '=', id)
        .where('processed_at', 'is', null)
        .execute();
    },
    async markFailed(id, error, nextTryAt) {
      await db
        .updateTable('processor_events')
        .set((eb) => ({ tries: eb('tries', '+', 1), last_error: error, next_try_at: nextTryAt }))
        .where('id', '=', id)
        .where('processed_at', 'is', null)
        .execute();
    },
  };
}
