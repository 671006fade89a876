import { sql, type Kysely } from 'kysely';

// A business buyer: its company name and VAT ID as given at checkout (normalized), and whether EU
// reverse charge applied (the buyer accounts for the VAT; 0% charged). Earlier transactions were
// consumers' purchases: no name, no ID, no reverse charge.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('business_name', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('buyer_vat_id', 'text').execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('reverse_charge', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('reverse_charge').execute();
  await db.schema.alterTable('transactions').dropColumn('buyer_vat_id').execute();
  await db.schema.alterTable('transactions').dropColumn('business_name').execute();
}
