import type { Repositories } from '../domain/ports.ts';
import type { DialectName, Executor, ReadRows } from './database.ts';
import { precompiled } from './precompiled.ts';
import { whereScope } from './scope.ts';

/** Each vendor's sandbox clock: its offset from real time, and how much billing it has still to catch up. */
export function sandboxClocksStore(
  db: Executor,
  dialect: DialectName,
  reads: ReadRows | undefined,
): Repositories['sandboxClocks'] {
  // On every sandbox API request: compiled once and run past Kysely.
  const offsetRow = precompiled(
    db,
    1,
    (vendorId: string) => db.selectFrom('sandbox_clocks').select('offset_ms').where('vendor_id', '=', vendorId),
    {
      runOn: reads,
      shareAs: `${dialect}:sandboxClocks.offsetOf`,
    },
  );
  return {
    async offsetOf(vendorId) {
      const [row] = await offsetRow(vendorId);
      return row ? Number(row.offset_ms) : 0;
    },
    async list() {
      const rows = await db.selectFrom('sandbox_clocks').select(['vendor_id', 'offset_ms']).execute();
      return rows.map((r) => ({ vendorId: r.vendor_id, offsetMs: Number(r.offset_ms) }));
    },
    async set(vendorId, offsetMs, at) {
      await db
        .insertInto('sandbox_clocks')
        .values({ vendor_id: vendorId, offset_ms: offsetMs, updated_at: at })
        .onConflict((oc) => oc.column('vendor_id').doUpdateSet({ offset_ms: offsetMs, updated_at: at }))
        .execute();
    },
    async backlog(vendorId, dueBy, limit) {
      // On the per-vendor due index; counting stops at `limit` rows, so a large backlog costs no more to read.
      const due = db
        .selectFrom('transactions')
        .select('next_charge')
        .$call(whereScope({ vendorId, environment: 'sandbox' }))
        .where('next_charge', 'is not', null)
        .where('next_charge', '<=', dueBy)
        .orderBy('next_charge')
        .limit(limit)
        .as('due');
      const row = await db
        .selectFrom(due)
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('due.next_charge').as('oldest')])
        .executeTakeFirstOrThrow();
      return { due: Number(row.n), oldestDue: row.oldest ?? null };
    },
  };
}
