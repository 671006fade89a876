import type { Kysely } from 'kysely';

// Vendors' payout statements (docs/decisions.md §22): one per vendor, environment and currency at a
// time, numbered per vendor and environment, chained per currency (`seq`, unique: two statements made
// at once cannot both follow the same one). Each ledger entry is covered by one statement at most: the
// entry's id is the primary key of payout_statement_entries, so two processes cannot both pay it out.
// (No foreign key to the statement: its header is written in the same database transaction, and a
// check per entry was half the time of a statement of a million entries on PostgreSQL.)
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payout_statements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('until', 'text', (c) => c.notNull())
    .addColumn('held_from', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('entry_count', 'integer', (c) => c.notNull())
    .addColumn('gross_minor', 'bigint', (c) => c.notNull())
    .addColumn('tax_minor', 'bigint', (c) => c.notNull())
    .addColumn('refunds_minor', 'bigint', (c) => c.notNull())
    .addColumn('chargebacks_minor', 'bigint', (c) => c.notNull())
    .addColumn('processor_fees_minor', 'bigint', (c) => c.notNull())
    .addColumn('platform_fees_minor', 'bigint', (c) => c.notNull())
    .addColumn('rounding_minor', 'bigint', (c) => c.notNull())
    .addColumn('income_minor', 'bigint', (c) => c.notNull())
    .addColumn('carried_in_minor', 'bigint', (c) => c.notNull())
    .addColumn('payable_minor', 'bigint', (c) => c.notNull())
    .addColumn('carried_out_minor', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .addColumn('paid_reference', 'text')
    .addUniqueConstraint('payout_statements_chain', ['vendor_id', 'environment', 'currency', 'seq'])
    .addUniqueConstraint('payout_statements_number', ['vendor_id', 'environment', 'number'])
    .execute();
  await db.schema
    .createTable('payout_statement_entries')
    .addColumn('entry_id', 'text', (c) => c.primaryKey())
    .addColumn('statement_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payout_statement_entries_by_statement')
    .on('payout_statement_entries')
    .columns(['statement_id'])
    .execute();
  await db.schema
    .createIndex('ledger_by_vendor_currency')
    .on('ledger_entries')
    .columns(['vendor_id', 'environment', 'income_currency', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_by_vendor_currency').execute();
  await db.schema.dropTable('payout_statement_entries').execute();
  await db.schema.dropTable('payout_statements').execute();
}
