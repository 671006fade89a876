import { sql, type Kysely } from 'kysely';

// Invoices and credit notes are numbered per vendor and environment without gaps: every payment
// and refund entry takes the next number from its counter in the database transaction that
// inserts it. Entries from before get numbers in the order they were made.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('invoice_counters')
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('last_number', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('invoice_counters_pk', ['vendor_id', 'environment'])
    .execute();
  await db.schema.alterTable('ledger_entries').addColumn('invoice_number', 'integer').execute();
  await sql`with numbered as (
      select id, row_number() over (partition by vendor_id, environment order by created_at, id) as n
      from ledger_entries where type <> 'CHARGEBACK')
    update ledger_entries set invoice_number = numbered.n from numbered where ledger_entries.id = numbered.id`.execute(
    db,
  );
  await sql`insert into invoice_counters (vendor_id, environment, last_number)
    select vendor_id, environment, max(invoice_number) from ledger_entries where invoice_number is not null group by vendor_id, environment`.execute(
    db,
  );
  await db.schema
    .createIndex('ledger_invoice_number_unique')
    .on('ledger_entries')
    .columns(['vendor_id', 'environment', 'invoice_number'])
    .unique()
    .where(sql.ref('invoice_number'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_invoice_number_unique').execute();
  await db.schema.alterTable('ledger_entries').dropColumn('invoice_number').execute();
  await db.schema.dropTable('invoice_counters').execute();
}
