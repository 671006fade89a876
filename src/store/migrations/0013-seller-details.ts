import type { Kysely } from 'kysely';

// What invoices show about the seller (decisions §16): legal name, address lines ("\n"-joined),
// country, tax id, support e-mail and a small logo (a data URL). All optional: an invoice falls back
// to the vendor's name and e-mail.
const COLUMNS = ['seller_name', 'address', 'country', 'tax_id', 'support_email', 'logo'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('vendors').addColumn(column, 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('vendors').dropColumn(column).execute();
}
