import type { Kysely } from 'kysely';

// The operator's console (docs/decisions.md §26): its logins, apart from the vendors' panel users so that
// no vendor account can ever be an operator, and their sessions (only the SHA-256 of the cookie is kept).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operator_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email_lower', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('operator_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('operator_users.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('operator_sessions_by_user').on('operator_sessions').columns(['user_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operator_sessions').execute();
  await db.schema.dropTable('operator_users').execute();
}
