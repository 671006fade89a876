import type { Kysely } from 'kysely';

// Sessions of the admin tool (docs/decisions.md §18), stored by the SHA-256 of the session token so
// every request can check them, a panel sign-out can end those it opened, and a vendor can revoke them.
// `opened_by` is the panel session's hash, or null when the session came from a generate-url-to-admin link.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admin_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('opened_by', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('admin_sessions_opened_by').on('admin_sessions').column('opened_by').execute();
  await db.schema
    .createIndex('admin_sessions_vendor')
    .on('admin_sessions')
    .columns(['vendor_id', 'environment', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('admin_sessions').execute();
}
