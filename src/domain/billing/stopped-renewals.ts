import { periodStartOf } from './billing-period.ts';
import type { BillingContext } from './billing-context.ts';
import { stateAsIs } from './renewal-records.ts';
import { ENVIRONMENTS, type Scope } from '../model.ts';
import type { BillingState, BillingWrite } from '../ports.ts';

/**
 * Renewals the operator stopped (docs/decisions.md §24) going on again. A subscription whose renewal
 * fell due while stopped is moved on to the period of now, keeping its anchor: it is charged once, for
 * that period, when billing next runs, and the periods that passed while stopped are not charged (the
 * customer is not billed at once for every month the operator held the vendor). A dunning in progress
 * starts over with that period. One whose due period is still the period of now is left as it is.
 * Subscriptions with a renewal attempt open are left to it.
 */
export async function skipStoppedRenewals(ctx: BillingContext, vendorId: string): Promise<number> {
  let moved = 0;
  for (const environment of ENVIRONMENTS) {
    const scope: Scope = { vendorId, environment };
    // A sandbox whose clock the vendor moved is moved on to the period of its own time.
    const now = ctx.deps.clock.now(scope);
    moved += await ctx.deps.store.transaction(async (repos) => {
      const ids = await repos.billing.overdueOf(scope, now.toISOString());
      if (ids.length === 0) return 0;
      const states = await repos.billing.lockMany(ids);
      const writes = [...states].flatMap(([id, state]) => movedOn(id, state, now) ?? []);
      if (writes.length > 0) await repos.billing.apply(writes);
      return writes.length;
    });
  }
  return moved;
}

/** The write that moves one subscription on to the period of `now`, or undefined when its period is that one already. */
function movedOn(id: string, state: BillingState, now: Date): BillingWrite | undefined {
  const billing = state.billing;
  if (!billing || !state.nextCharge || Date.parse(state.nextCharge) > now.getTime()) return undefined;
  let period = billing.period;
  while (periodStartOf(billing, state.chargeFrequency, period + 1).getTime() <= now.getTime()) period++;
  if (period === billing.period) return undefined;
  return {
    transactionId: id,
    state: {
      ...stateAsIs(state, billing),
      nextCharge: periodStartOf(billing, state.chargeFrequency, period).toISOString(),
      period,
      failedAttempts: 0,
    },
    change: null,
    entry: null,
    attempt: null,
  };
}
