import type { Kysely } from 'kysely';

// The hourly purge deletes keys by age: an index keeps it from reading the whole table.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('idempotency_keys_by_age').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('idempotency_keys_by_age').execute();
}
