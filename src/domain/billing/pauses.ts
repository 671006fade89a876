import type { Clock } from '../clock.ts';
import { invalidInput, invalidState, notFound } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import type { PauseWrite, Repositories, Store } from '../ports.ts';
import { pauseCalledOff, pauseStateOf, planPause, planResume, type PauseStep } from './pause-rules.ts';

/** What pausing runs on; `clock.now(scope)` is the vendor's sandbox time where it was moved. */
export interface PauseDeps {
  store: Store;
  clock: Clock;
}

/** A pause's or resume's result: the subscription as it is now, and whether this call changed it. */
export interface PauseOutcome {
  transaction: Transaction;
  changed: boolean;
}

/** The subscription as a write leaves it. */
const applied = (t: Transaction, w: PauseWrite): Transaction => ({
  ...t,
  nextCharge: w.nextCharge,
  billing: t.billing && { ...t.billing, anchor: w.anchor, anchorPeriod: w.anchorPeriod },
  pause: w.pause,
});

/**
 * One pause or resume, decided against the locked row in one database transaction. A renewal being
 * charged (its attempt open, committed with the claim that locked the row) refuses it: the period
 * being charged is the customer's, and a pause written under it could have that charge booked into
 * the paused time (docs/decisions.md §41).
 */
function step(deps: PauseDeps, scope: Scope, id: string, plan: (t: Transaction, now: Date) => PauseStep) {
  return deps.store.transaction(async (repos): Promise<PauseOutcome> => {
    const t = await repos.transactions.lock(scope, id);
    if (!t) throw notFound(`Transaction ${id}`);
    const write = plan(t, deps.clock.now(scope));
    if (!write) return { transaction: t, changed: false };
    if (await repos.pauses.renewalOpen(id))
      throw invalidState(`A renewal of subscription ${id} is being charged; try again in a minute.`);
    await repos.pauses.write(scope, id, write);
    return { transaction: applied(t, write), changed: true };
  });
}

/** A resume date as given: an ISO date-time, kept to the millisecond in UTC. */
export function resumeDateOf(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms))
    throw invalidInput('resumeAt must be an ISO 8601 date-time, such as 2027-01-31T00:00:00Z.');
  return new Date(ms).toISOString();
}

/**
 * A cancellation of a subscription with a pause (docs/decisions.md §41), inside the cancel's database
 * transaction: a pause not in effect yet is called off, so the subscription ends at the end of its paid
 * period as any other; one in effect has no paid period left, so the subscription ends at once.
 */
export async function cancelAroundPause(
  repos: Repositories,
  scope: Scope,
  t: Transaction,
  now: Date,
): Promise<{ transaction: Transaction; endsNow: boolean }> {
  const state = pauseStateOf(t, now);
  if (state === 'paused') return { transaction: t, endsNow: true };
  if (state === 'none' || !t.billing) return { transaction: t, endsNow: false };
  const write = pauseCalledOff({ ...t, billing: t.billing }, t.pause!);
  await repos.pauses.write(scope, t.id, write);
  return { transaction: applied(t, write), endsNow: false };
}

/** Pausing and resuming subscriptions: the vendor's (panel, CLI, API) and, where the vendor allows it, the customer's. */
export function pauseService(deps: PauseDeps) {
  /** The customer's own subscription (by its e-mail or the one it was assigned to); anyone else's is not found. */
  const own = async (scope: Scope, email: string, id: string) => {
    const t = await deps.store.transactions.find(scope, id);
    const owners = [t?.email, t?.assignedEmail].flatMap((e) => (e ? [e.toLowerCase()] : []));
    if (!t || !owners.includes(email.toLowerCase())) throw notFound(`Transaction ${id}`);
  };
  return {
    pause: (scope: Scope, id: string, resumeAt?: string | null) => {
      const resumesAt = resumeDateOf(resumeAt);
      return step(deps, scope, id, (t, now) => planPause(t, now, resumesAt));
    },
    resume: (scope: Scope, id: string) => step(deps, scope, id, planResume),

    /** The customer pauses their own subscription, until they resume it, where the vendor allows it. */
    async pauseOwn(scope: Scope, email: string, id: string) {
      await own(scope, email, id);
      if (!(await deps.store.pauses.customerPause(scope.vendorId)))
        throw invalidState('This seller does not let customers pause their subscriptions.');
      return step(deps, scope, id, (t, now) => planPause(t, now, null));
    },
    /** The customer resumes their own paused subscription (always: resuming is paying again). */
    async resumeOwn(scope: Scope, email: string, id: string) {
      await own(scope, email, id);
      return step(deps, scope, id, planResume);
    },

    customerPause: (vendorId: string) => deps.store.pauses.customerPause(vendorId),
    setCustomerPause: (vendorId: string, allowed: boolean) => deps.store.pauses.setCustomerPause(vendorId, allowed),
    stateOf: (t: Transaction, scope: Scope) => pauseStateOf(t, deps.clock.now(scope)),
  };
}

export type PauseService = ReturnType<typeof pauseService>;
