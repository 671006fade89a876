import { sql, type Kysely } from 'kysely';

// Inbound processor events (src/domain/processor/processor-events.ts): each is stored once, by
// `<provider>:<environment>:<event id>`, when its signature checks out, and acted on later by the
// worker, which retries a failed one with a back-off (`tries`, `next_try_at`). Unprocessed events
// are found through a partial index. Acting on them looks ledger entries up by the processor's ids
// (payments, refunds, disputes) and a transaction's attempts by kind, hence the two other indexes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('processor_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    // The processor's time of the event: events are acted on in this order.
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'text')
    .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .addColumn('last_error', 'text')
    .addColumn('next_try_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('processor_events_due')
    .on('processor_events')
    .columns(['next_try_at', 'created_at'])
    .where(sql.ref('processed_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('ledger_by_external_id')
    .on('ledger_entries')
    .columns(['external_id'])
    .where((eb: any) => eb.and([eb('external_id', 'is not', null), eb('external_id', '!=', '')]))
    .execute();
  await db.schema
    .createIndex('charge_attempts_by_transaction')
    .on('charge_attempts')
    .columns(['transaction_id', 'kind', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('charge_attempts_by_transaction').execute();
  await db.schema.dropIndex('ledger_by_external_id').execute();
  await db.schema.dropTable('processor_events').execute();
}
