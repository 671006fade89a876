import { sql, type Kysely } from 'kysely';

// A vendor's suspension by the operator (docs/decisions.md §24): since when (null: not suspended), why,
// and whether its renewals are stopped too (1) or go on (0). Every vendor there is already is not suspended.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').addColumn('suspended_at', 'text').execute();
  await db.schema.alterTable('vendors').addColumn('suspension_reason', 'text').execute();
  await db.schema
    .alterTable('vendors')
    .addColumn('renewals_stopped', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').dropColumn('renewals_stopped').execute();
  await db.schema.alterTable('vendors').dropColumn('suspension_reason').execute();
  await db.schema.alterTable('vendors').dropColumn('suspended_at').execute();
}
