import type { Kysely } from 'kysely';

// An invoice says who it was made out to when it was issued (docs/decisions.md §34): when a customer
// edits their billing details in the portal, the details every earlier invoice and credit note of that
// purchase was issued with are kept here, one row per ledger entry, in the edit's database transaction.
// An entry without a row was issued with the transaction's current details.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('issued_invoice_buyers')
    .addColumn('entry_id', 'text', (c) => c.primaryKey().references('ledger_entries.id'))
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('buyer_name', 'text')
    .addColumn('business_name', 'text')
    .addColumn('buyer_address', 'text')
    .addColumn('buyer_vat_id', 'text')
    .addColumn('reverse_charge', 'integer', (c) => c.notNull())
    .addColumn('tax_name', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('issued_invoice_buyers').execute();
}
