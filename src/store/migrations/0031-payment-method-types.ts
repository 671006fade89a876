import type { Kysely } from 'kysely';

// What a buyer paid with beyond a card (docs/decisions.md §37): the processor's method type ("card",
// "sepa_debit", "paypal", "link", …) and the wallet a card was used through ("apple_pay", "google_pay").
// Every row stored before this was a card typed in directly, hence the default and null.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payment_methods')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('card'))
    .execute();
  await db.schema.alterTable('payment_methods').addColumn('wallet', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_methods').dropColumn('wallet').execute();
  await db.schema.alterTable('payment_methods').dropColumn('type').execute();
}
