import type { Kysely } from 'kysely';

// The buyer's ZIP or postal code as given at checkout: a US renewal is taxed at the ZIP's combined
// rate like its first payment, and the invoice shows it. Earlier transactions have none (state rates).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('postal_code', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('postal_code').execute();
}
