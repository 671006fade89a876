import type { Kysely } from 'kysely';

// A product is archived, never deleted: its transactions, renewals and licences refer to it. While
// `archived_at` is set no new sale starts on it (docs/decisions.md §28); null is on sale. The index
// answers whether anything was sold on a product (its frequency may change only until then).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').addColumn('archived_at', 'text').execute();
  await db.schema.createIndex('transactions_by_product').on('transactions').columns(['product_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_by_product').execute();
  await db.schema.alterTable('products').dropColumn('archived_at').execute();
}
