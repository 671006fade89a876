import { sql, type Kysely } from 'kysely';

// One charge protocol for every money movement (docs/decisions.md §10a): each attempt says
// what kind of movement it is and carries the plan that books it, so the reconciler can settle an
// attempt whose answer was lost. Open attempts are found through a partial index. The sandbox's
// virtual network keeps its refunds by id, as it keeps its charges, so a repeated refund is the same one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('charge_attempts')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('PURCHASE'))
    .execute();
  await db.schema.alterTable('charge_attempts').addColumn('plan', 'text').execute();
  await sql`update charge_attempts set kind = case
      when attempt_key like 'renewal:%' then 'RENEWAL'
      when attempt_key like 'vaulted:%' then 'VAULTED'
      else 'PURCHASE' end`.execute(db);
  await db.schema
    .createIndex('charge_attempts_open')
    .on('charge_attempts')
    .columns(['created_at'])
    .where(sql.ref('status'), 'in', ['PENDING', 'UNKNOWN'])
    .execute();
  await db.schema
    .createTable('sandbox_gateway_refunds')
    .addColumn('refund_id', 'text', (c) => c.primaryKey())
    .addColumn('charge_reference', 'text')
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandbox_gateway_refunds').execute();
  await db.schema.dropIndex('charge_attempts_open').execute();
  await db.schema.alterTable('charge_attempts').dropColumn('plan').execute();
  await db.schema.alterTable('charge_attempts').dropColumn('kind').execute();
}
