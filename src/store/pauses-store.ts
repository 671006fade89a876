import type { PauseRepository } from '../domain/ports/pauses.ts';
import type { Executor } from './database.ts';
import { whereScope } from './scope.ts';

/** Pauses (docs/decisions.md §41): the schedule columns a pause and a resume write, and the portal setting. */
export function pausesStore(db: Executor): PauseRepository {
  return {
    async write(scope, id, w) {
      await db
        .updateTable('transactions')
        .set({
          next_charge: w.nextCharge,
          billing_anchor: w.anchor,
          billing_anchor_period: w.anchorPeriod,
          pause_starts_at: w.pause?.startsAt ?? null,
          pause_resumes_at: w.pause?.resumesAt ?? null,
          pause_prior_anchor: w.pause?.priorAnchor ?? null,
          pause_prior_anchor_period: w.pause ? w.pause.priorAnchorPeriod : null,
        })
        .where('id', '=', id)
        .$call(whereScope(scope))
        .execute();
    },

    async renewalOpen(transactionId) {
      const row = await db
        .selectFrom('charge_attempts')
        .select('id')
        .where('transaction_id', '=', transactionId)
        .where('kind', '=', 'RENEWAL')
        .where('status', 'in', ['PENDING', 'UNKNOWN'])
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async customerPause(vendorId) {
      const row = await db
        .selectFrom('portal_settings')
        .select('customer_pause')
        .where('vendor_id', '=', vendorId)
        .executeTakeFirst();
      return Number(row?.customer_pause ?? 0) === 1;
    },

    async setCustomerPause(vendorId, allowed) {
      await db
        .insertInto('portal_settings')
        .values({ vendor_id: vendorId, customer_pause: allowed ? 1 : 0 })
        .onConflict((c) => c.column('vendor_id').doUpdateSet({ customer_pause: allowed ? 1 : 0 }))
        .execute();
    },
  };
}
