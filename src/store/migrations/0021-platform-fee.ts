import type { Kysely } from 'kysely';

// A vendor's own platform fee (docs/decisions.md §21), as the operator wrote it; null: the operator's
// default (PLATFORM_FEE). Every vendor there is already takes the default.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').addColumn('platform_fee', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').dropColumn('platform_fee').execute();
}
