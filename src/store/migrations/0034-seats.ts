import type { Kysely } from 'kysely';

// Seats (docs/decisions.md §39). A product sold per seat has a quantity range (null: one per purchase)
// and volume tiers, kept as JSON [{fromQuantity, prices}] as a customized product keeps its prices. A
// transaction's net amounts are for `quantity` seats; every existing purchase is one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').addColumn('seat_min_quantity', 'integer').execute();
  await db.schema.alterTable('products').addColumn('seat_max_quantity', 'integer').execute();
  await db.schema.alterTable('products').addColumn('seat_tiers_json', 'text').execute();
  await db.schema.alterTable('customized_products').addColumn('quantity', 'integer').execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('quantity', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('quantity').execute();
  await db.schema.alterTable('customized_products').dropColumn('quantity').execute();
  await db.schema.alterTable('products').dropColumn('seat_tiers_json').execute();
  await db.schema.alterTable('products').dropColumn('seat_max_quantity').execute();
  await db.schema.alterTable('products').dropColumn('seat_min_quantity').execute();
}
