import { sql, type Kysely } from 'kysely';

// Customer e-mails (decisions §20): an outbox row is written in the database transaction of the
// change that causes it, keyed by its event so that an event can only ever queue one e-mail; the
// worker claims due rows with a lease (PostgreSQL skips rows another worker holds), sends each and
// marks it sent. The address is the transaction's, read when sending. Due rows are found through a partial index. Vendors choose a sender name, a
// reply-to address and which e-mails go out (the kinds turned off, space-separated: all on by default).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').addColumn('email_sender_name', 'text').execute();
  await db.schema.alterTable('vendors').addColumn('email_reply_to', 'text').execute();
  await db.schema
    .alterTable('vendors')
    .addColumn('emails_off', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('customer_emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_key', 'text', (c) => c.notNull().unique())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('facts', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_try_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema
    .createIndex('customer_emails_due')
    .on('customer_emails')
    .columns(['next_try_at'])
    .where(sql.ref('status'), '=', 'PENDING')
    .execute();
  await db.schema
    .createIndex('customer_emails_vendor')
    .on('customer_emails')
    .columns(['vendor_id', 'environment', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('customer_emails').execute();
  for (const column of ['emails_off', 'email_reply_to', 'email_sender_name'])
    await db.schema.alterTable('vendors').dropColumn(column).execute();
}
