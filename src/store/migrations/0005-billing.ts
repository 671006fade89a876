import { sql, type Kysely } from 'kysely';

// The billing worker's state on the transaction row: the anchor its periods are counted from, the
// index of the period `next_charge` starts, declined tries of that period (dunning), and a lease
// a worker holds while it charges the row. Plus per-vendor sandbox clocks, and expiry marks of
// customized products.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('billing_anchor', 'text').execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('billing_period', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
  await db.schema.alterTable('transactions').addColumn('billing_lease_until', 'text').execute();
  // Rows from before the worker: their next charge becomes the anchor of their schedule.
  await db
    .updateTable('transactions')
    .set({ billing_anchor: sql.ref('next_charge') })
    .where('next_charge', 'is not', null)
    .execute();
  // A vendor's sandbox whose clock was moved: its due work is found per vendor, still by index.
  await db.schema
    .createIndex('transactions_due_by_vendor')
    .on('transactions')
    .columns(['vendor_id', 'environment', 'next_charge'])
    .where(sql.ref('next_charge'), 'is not', null)
    .execute();

  await db.schema
    .createTable('sandbox_clocks')
    .addColumn('vendor_id', 'text', (c) => c.primaryKey().references('vendors.id'))
    .addColumn('offset_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('customized_products')
    .addColumn('expired', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
  await db.schema
    .createIndex('customized_products_expiry')
    .on('customized_products')
    .columns(['expires_at'])
    .where((eb: any) => eb.and([eb('expired', '=', 0), eb('expires_at', 'is not', null)]))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('customized_products_expiry').execute();
  await db.schema.alterTable('customized_products').dropColumn('expired').execute();
  await db.schema.dropTable('sandbox_clocks').execute();
  await db.schema.dropIndex('transactions_due_by_vendor').execute();
  for (const column of ['billing_lease_until', 'failed_attempts', 'billing_period', 'billing_anchor']) {
    await db.schema.alterTable('transactions').dropColumn(column).execute();
  }
}
