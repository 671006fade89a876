import { sql, type Kysely } from 'kysely';

// The origins a vendor lets frame its admin tool (space-separated; none by default), and an index
// for the admin tool's list of a vendor's latest transactions.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('vendors')
    .addColumn('admin_frame_origins', 'text', (c) => c.notNull().defaultTo(sql`''`))
    .execute();
  await db.schema
    .createIndex('transactions_recent')
    .on('transactions')
    .columns(['vendor_id', 'environment', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_recent').execute();
  await db.schema.alterTable('vendors').dropColumn('admin_frame_origins').execute();
}
