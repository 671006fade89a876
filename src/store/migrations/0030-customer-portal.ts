import { sql, type Kysely } from 'kysely';

// The customer portal (docs/decisions.md §34):
// - `portal_sign_ins`: one-time sign-in links e-mailed to a customer, kept only as the SHA-256 of the
//   token, so a copy of the database opens nobody's purchases; `used_at` makes each one single-use.
// - `portal_plan_switches`: per product, the plans its subscribers may switch to in the portal.
// - `portal_settings`: per vendor, whether customers may cancel at once (else at the period's end).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('portal_sign_ins')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('portal_sign_ins_expiry').on('portal_sign_ins').column('expires_at').execute();
  await db.schema
    .createTable('portal_plan_switches')
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('to_product_id', 'text', (c) => c.notNull().references('products.id'))
    .addPrimaryKeyConstraint('portal_plan_switches_pk', ['product_id', 'to_product_id'])
    .execute();
  await db.schema
    .createTable('portal_settings')
    .addColumn('vendor_id', 'text', (c) => c.primaryKey().references('vendors.id'))
    .addColumn('cancel_now', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('portal_settings').execute();
  await db.schema.dropTable('portal_plan_switches').execute();
  await db.schema.dropTable('portal_sign_ins').execute();
}
