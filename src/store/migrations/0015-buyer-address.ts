import type { Kysely } from 'kysely';

// A business buyer's postal address (street and city, as typed; lines separated by newlines): an EU
// invoice must name the buyer's address, and a reverse-charge one the more so. Consumers give none.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('buyer_address', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('buyer_address').execute();
}
