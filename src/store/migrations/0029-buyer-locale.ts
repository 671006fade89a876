import type { Kysely } from 'kysely';

// What a buyer chose or typed that every later page, e-mail and invoice must keep (docs/decisions.md §32):
// - `locale`: the language the buyer bought in, so renewal e-mails and invoices speak it; null is
//   English (every row sold before this migration).
// - `buyer_name`: the billing name on invoices, from checkout and editable in the portal.
// - `cancel_reason`: what the customer said when cancelling in the portal, shown to the vendor.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('locale', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('buyer_name', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('cancel_reason', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('cancel_reason').execute();
  await db.schema.alterTable('transactions').dropColumn('buyer_name').execute();
  await db.schema.alterTable('transactions').dropColumn('locale').execute();
}
