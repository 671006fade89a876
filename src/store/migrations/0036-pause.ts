import { sql, type Kysely } from 'kysely';

// Pause and resume (docs/decisions.md §41).
// - `billing_anchor_period`: the period that starts at `billing_anchor`. A resume starts a new period
//   at once (a new anchor) while the period count goes on, so each period keeps its own attempt keys.
// - `pause_*`: the subscription's latest pause: when it takes effect (the end of the paid period), when
//   it ends (null: until resumed by hand), and the anchor it replaced, put back when a pause is called
//   off before it took effect.
// - `portal_settings.customer_pause`: whether the vendor lets customers pause on the management page.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('transactions')
    .addColumn('billing_anchor_period', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('transactions').addColumn('pause_starts_at', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('pause_resumes_at', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('pause_prior_anchor', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('pause_prior_anchor_period', 'integer').execute();
  await db.schema
    .alterTable('portal_settings')
    .addColumn('customer_pause', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('portal_settings').dropColumn('customer_pause').execute();
  for (const column of [
    'pause_prior_anchor_period',
    'pause_prior_anchor',
    'pause_resumes_at',
    'pause_starts_at',
    'billing_anchor_period',
  ])
    await db.schema.alterTable('transactions').dropColumn(column).execute();
}
