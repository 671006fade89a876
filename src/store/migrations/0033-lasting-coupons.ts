import type { Kysely } from 'kysely';

// Lasting discounts (docs/decisions.md §38). A coupon gets a duration (every existing one stays
// 'once'), caps, restrictions and a start date. Its redemptions are counted on its own row
// (`redemptions`, raised by a conditional UPDATE) and per e-mail (`coupon_customer_redemptions`),
// one row per purchase in `coupon_redemptions`: HELD while its payment is open, USED once booked,
// RELEASED (and the counters given back) when the payment fails. A transaction remembers the coupon
// it was bought with, so its renewals apply it; a ledger entry keeps what the coupon took off.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('coupons')
    .addColumn('duration', 'text', (c) => c.notNull().defaultTo('once'))
    .execute();
  await db.schema.alterTable('coupons').addColumn('duration_periods', 'integer').execute();
  await db.schema.alterTable('coupons').addColumn('max_redemptions', 'integer').execute();
  await db.schema
    .alterTable('coupons')
    .addColumn('redemptions', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('coupons').addColumn('max_per_customer', 'integer').execute();
  await db.schema.alterTable('coupons').addColumn('other_product_ids_json', 'text').execute();
  await db.schema.alterTable('coupons').addColumn('frequencies_json', 'text').execute();
  await db.schema
    .alterTable('coupons')
    .addColumn('first_purchase_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('coupons').addColumn('starts_at', 'text').execute();
  await db.schema
    .createTable('coupon_redemptions')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('coupon_id', 'text', (c) => c.notNull().references('coupons.id'))
    .addColumn('email_lower', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('coupon_redemptions_by_coupon').on('coupon_redemptions').column('coupon_id').execute();
  await db.schema
    .createTable('coupon_customer_redemptions')
    .addColumn('coupon_id', 'text', (c) => c.notNull().references('coupons.id'))
    .addColumn('email_lower', 'text', (c) => c.notNull())
    .addColumn('redemptions', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('coupon_customer_redemptions_pk', ['coupon_id', 'email_lower'])
    .execute();
  await db.schema.alterTable('transactions').addColumn('coupon_id', 'text').execute();
  await db.schema
    .alterTable('ledger_entries')
    .addColumn('discount_minor', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ledger_entries').dropColumn('discount_minor').execute();
  await db.schema.alterTable('transactions').dropColumn('coupon_id').execute();
  await db.schema.dropTable('coupon_customer_redemptions').execute();
  await db.schema.dropTable('coupon_redemptions').execute();
  for (const column of [
    'starts_at',
    'first_purchase_only',
    'frequencies_json',
    'other_product_ids_json',
    'max_per_customer',
    'redemptions',
    'max_redemptions',
    'duration_periods',
    'duration',
  ])
    await db.schema.alterTable('coupons').dropColumn(column).execute();
}
