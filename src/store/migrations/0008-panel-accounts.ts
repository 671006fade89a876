import type { Kysely } from 'kysely';

// People who sign in to the vendor panel (one vendor each for now), and their sessions, stored by
// the SHA-256 of the cookie's value so a database leak does not leak live sessions.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('panel_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('email_lower', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('panel_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('panel_users.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('panel_sessions').execute();
  await db.schema.dropTable('panel_users').execute();
}
