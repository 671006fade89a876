import type { Kysely } from 'kysely';

// Discount codes per product; the code is unique per product, in upper case.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('coupons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('percent_off', 'text')
    .addColumn('amounts_off_json', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('coupons_code_per_product', ['product_id', 'code'])
    .execute();
  await db.schema.createIndex('coupons_by_vendor').on('coupons').columns(['vendor_id', 'environment']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('coupons').execute();
}
