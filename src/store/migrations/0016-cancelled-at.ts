import { sql, type Kysely } from 'kysely';

// When a subscription stopped renewing, kept apart from `changed_at` (which every later change moves,
// such as the end of a cancelled period or a refund), so churn counts a subscription in the period
// it was cancelled in. Existing stopped subscriptions take their latest change as the best guess.
// The statuses are the domain's STOPPED_SUBSCRIPTION_STATUSES, written out: a migration never changes.
// Churn leaves out a subscription a plan switch replaced: it finds the successor through the offer
// that named the old subscription, hence the two partial indexes. Plus the index the overview's
// revenue query (ledger sums by vendor, environment and time) reads.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('cancelled_at', 'text').execute();
  await db
    .updateTable('transactions')
    .set({ cancelled_at: sql`coalesce(changed_at, created_at)` })
    .where('type', '=', 'SUBSCRIPTION')
    .where('status', 'in', [
      'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
      'SUBSCRIPTION_STATUS_CANCELLED',
      'TRANSACTION_STATUS_REFUNDED',
    ])
    .execute();
  await db.schema
    .createIndex('transactions_cancelled')
    .on('transactions')
    .columns(['vendor_id', 'environment', 'cancelled_at'])
    .where(sql.ref('cancelled_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('customized_products_by_migrated')
    .on('customized_products')
    .columns(['transaction_id_to_migrate'])
    .where(sql.ref('transaction_id_to_migrate'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('transactions_by_customized_product')
    .on('transactions')
    .columns(['customized_product_id'])
    .where(sql.ref('customized_product_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('ledger_by_vendor_time')
    .on('ledger_entries')
    .columns(['vendor_id', 'environment', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_by_vendor_time').execute();
  await db.schema.dropIndex('transactions_by_customized_product').execute();
  await db.schema.dropIndex('customized_products_by_migrated').execute();
  await db.schema.dropIndex('transactions_cancelled').execute();
  await db.schema.alterTable('transactions').dropColumn('cancelled_at').execute();
}
