import { sql, type Kysely } from 'kysely';

// Whether a vendor may reach production (docs/decisions.md §19, "Who may sign up"): 0 for a vendor that
// signed up in an open panel, until the operator enables it. Every vendor there is already was made by
// the operator or signed up while sign-up had no switch, and keeps what it could do: 1.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('vendors')
    .addColumn('production_enabled', 'integer', (c) => c.notNull().defaultTo(sql`1`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').dropColumn('production_enabled').execute();
}
