import type { BillingReport, BillingService } from './billing.ts';
import type { VendorClock } from '../clock.ts';
import { invalidInput, notFound } from '../errors.ts';
import type { Scope } from '../model.ts';
import type { Store } from '../ports.ts';

const DAY_MS = 86_400_000;
/** How far a sandbox clock may run ahead: far enough for any yearly plan's lifetime, no further. */
const MAX_OFFSET_MS = 20 * 365 * DAY_MS;
/** How far one call may move it: a year, leap day included. Its billing is the worker's, in the background. */
const MAX_STEP_MS = 366 * DAY_MS;
/** Subscriptions counted when telling how much billing is still due; reading a larger backlog costs no more. */
const PENDING_COUNT_LIMIT = 10_000;

/** The billing that became due in a sandbox and that the worker has not done yet. */
export interface BillingProgress {
  /** Subscriptions with a step (renewal, retry, end of a paid period) due by the sandbox's time; counted up to 10,000. */
  pending: number;
  /** The sandbox time the oldest of those steps was due at: it moves toward `now` as the worker catches up. */
  oldestDue: string | null;
  /** Nothing is due: every renewal, retry and ending up to the sandbox's time is done. */
  caughtUp: boolean;
}

export interface ClockReading {
  now: string;
  offsetMs: number;
  billing: BillingProgress;
}

/** What a sandbox clock runs on: the clocks' store, the process's clock, and billing to catch up with. */
interface SandboxClockDeps {
  store: Store;
  clock: VendorClock;
  billing: Pick<BillingService, 'runDue'>;
}

const mustBeSandbox = (scope: Scope) => {
  if (scope.environment !== 'sandbox')
    throw notFound('A movable clock (production time cannot be moved; use the sandbox URL)');
};

async function reading(deps: SandboxClockDeps, scope: Scope): Promise<ClockReading> {
  const now = deps.clock.now(scope);
  const { due, oldestDue } = await deps.store.sandboxClocks.backlog(
    scope.vendorId,
    now.toISOString(),
    PENDING_COUNT_LIMIT,
  );
  return {
    now: now.toISOString(),
    offsetMs: deps.clock.offsetOf(scope.vendorId),
    billing: { pending: due, oldestDue, caughtUp: due === 0 },
  };
}

async function refresh(deps: SandboxClockDeps): Promise<void> {
  for (const { vendorId, offsetMs } of await deps.store.sandboxClocks.list()) deps.clock.setOffset(vendorId, offsetMs);
}

/** The offset a move asks for, from the offset `current`: forward only, a year at most, 20 years ahead at most. */
function offsetAfter(
  clock: VendorClock,
  scope: Scope,
  current: number,
  input: { seconds?: unknown; to?: unknown },
): number {
  let offsetMs: number;
  if (input.to !== undefined && input.seconds !== undefined)
    throw invalidInput('Give either "seconds" or "to", not both.');
  if (input.to !== undefined) {
    const target = typeof input.to === 'string' && /^\d{4}-\d\d-\d\dT/.test(input.to) ? Date.parse(input.to) : NaN;
    if (Number.isNaN(target)) throw invalidInput('"to" must be an ISO-8601 time such as "2027-01-31T00:00:00.000Z".');
    offsetMs = target - clock.real().getTime();
    if (offsetMs < current)
      throw invalidInput(`The sandbox clock only moves forward; it already reads ${clock.now(scope).toISOString()}.`);
  } else {
    const seconds = input.seconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds <= 0)
      throw invalidInput('"seconds" must be a positive whole number of seconds (or give "to").');
    offsetMs = current + seconds * 1000;
  }
  if (offsetMs - current > MAX_STEP_MS)
    throw invalidInput('The sandbox clock moves at most 366 days per call; move it again to go further.');
  if (offsetMs > MAX_OFFSET_MS) throw invalidInput('The sandbox clock can run at most 20 years ahead of real time.');
  return offsetMs;
}

/**
 * A vendor's sandbox clock: time there may run ahead of real time so a vendor can watch a monthly
 * subscription renew, fail, retry and end in seconds. It only moves forward, only in the sandbox,
 * at most a year per call. Moving it bills nothing itself: the billing worker catches up in small
 * batches, taking turns with every other clock (docs/decisions.md, "15. Billing"), and a reading
 * says how much is still due.
 */
export function sandboxClockService(deps: SandboxClockDeps) {
  const moved = new Set<(vendorId: string) => void>();
  let refreshedAt = 0;
  return {
    /** Loads offsets other processes (the CLI, another server) have set. */
    refresh: () => refresh(deps),

    /** Loads the vendor's offset as stored, whichever process moved it: before each sandbox API request. */
    async load(vendorId: string): Promise<void> {
      deps.clock.setOffset(vendorId, await deps.store.sandboxClocks.offsetOf(vendorId));
    },

    /** Loads every offset when the last load is older than `ms`: hosted sandbox pages, whose vendor is known only deeper in. */
    async refreshWithin(ms: number): Promise<void> {
      const now = deps.clock.real().getTime();
      if (now - refreshedAt < ms) return;
      refreshedAt = now;
      await refresh(deps);
    },

    /** Calls `listener` with the vendor's id whenever a sandbox clock is moved in this process; returns the unsubscribe. */
    onMoved(listener: (vendorId: string) => void): () => void {
      moved.add(listener);
      return () => moved.delete(listener);
    },

    async read(scope: Scope): Promise<ClockReading> {
      mustBeSandbox(scope);
      await refresh(deps);
      return reading(deps, scope);
    },

    /** Moves the sandbox clock forward by `seconds`, or to the instant `to`; the billing worker catches up. */
    async advance(scope: Scope, input: { seconds?: unknown; to?: unknown }): Promise<ClockReading> {
      mustBeSandbox(scope);
      await refresh(deps);
      const current = deps.clock.offsetOf(scope.vendorId);
      const offsetMs = offsetAfter(deps.clock, scope, current, input);
      await deps.store.sandboxClocks.set(scope.vendorId, offsetMs, deps.clock.real().toISOString());
      deps.clock.setOffset(scope.vendorId, offsetMs);
      const answer = await reading(deps, scope);
      for (const listener of moved) listener(scope.vendorId);
      return answer;
    },

    /**
     * Does the billing due in this sandbox now, in this process, before returning: for the
     * `opentill sandbox clock` command, a process of its own like `opentill worker --once`.
     */
    async catchUp(scope: Scope): Promise<ClockReading & { billed: BillingReport }> {
      mustBeSandbox(scope);
      const billed = await deps.billing.runDue({ sandboxVendorId: scope.vendorId });
      return { ...(await reading(deps, scope)), billed };
    },
  };
}

export type SandboxClockService = ReturnType<typeof sandboxClockService>;
