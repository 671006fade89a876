import { sql, type Kysely } from 'kysely';

// `portal_settings.customer_seats`: whether the vendor lets customers change their seats on the
// management page (docs/decisions.md §39); off by default, as every vendor before it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('portal_settings')
    .addColumn('customer_seats', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('portal_settings').dropColumn('customer_seats').execute();
}
