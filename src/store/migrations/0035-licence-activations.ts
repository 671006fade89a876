import { sql, type Kysely } from 'kysely';

// Licence activations (docs/decisions.md §40):
// - `products.activation_limit`: instances per key; null (every existing product) is no limit.
// - `licences.activations_used`: the slots taken, raised only by a conditional UPDATE that checks the
//   limit, so two activations can never both take the last slot; `revoked_at` when the vendor revoked it.
// - `licences_key_global`: a key alone names its licence (the customer's app sends no product id).
// - `licence_instances`: where a key is activated; one name once per key, so a retry takes no new slot.
// - `retired_licence_keys`: the keys a reissue replaced, which answer INACTIVE rather than NOT_FOUND.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').addColumn('activation_limit', 'integer').execute();
  await db.schema
    .alterTable('licences')
    .addColumn('activations_used', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
  await db.schema.alterTable('licences').addColumn('revoked_at', 'text').execute();
  await db.schema.createIndex('licences_key_global').on('licences').column('licence_key').unique().execute();
  await db.schema
    .createTable('licence_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('licence_id', 'text', (c) => c.notNull().references('licences.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('activated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('licence_instances_name', ['licence_id', 'name'])
    .execute();
  await db.schema
    .createTable('retired_licence_keys')
    .addColumn('licence_key', 'text', (c) => c.primaryKey())
    .addColumn('licence_id', 'text', (c) => c.notNull().references('licences.id'))
    .addColumn('retired_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('retired_licence_keys').execute();
  await db.schema.dropTable('licence_instances').execute();
  await db.schema.dropIndex('licences_key_global').execute();
  await db.schema.alterTable('licences').dropColumn('revoked_at').execute();
  await db.schema.alterTable('licences').dropColumn('activations_used').execute();
  await db.schema.alterTable('products').dropColumn('activation_limit').execute();
}
