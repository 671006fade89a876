import type { Kysely } from 'kysely';

// One-time messages of a panel session between a POST and the page its redirect opens (a new API
// credential's secret), in the database so that any process behind the port can show it: keyed by
// the session's cookie hash, sealed with a key derived from the cookie itself (which the server
// never stores), kept a minute, and deleted as it is read. Expired rows are found by time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('panel_flashes')
    .addColumn('session_hash', 'text', (c) => c.primaryKey())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('panel_flashes_expiry').on('panel_flashes').columns(['expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('panel_flashes').execute();
}
