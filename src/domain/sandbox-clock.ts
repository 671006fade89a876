import type { BillingReport, BillingService } from './billing.ts';
import type { VendorClock } from './clock.ts';
import { invalidInput, notFound } from './errors.ts';
import type { Scope } from './model.ts';
import type { Store } from './ports.ts';

/** How far a sandbox clock may run ahead: far enough for any yearly plan's lifetime, no further. */
const MAX_OFFSET_MS = 20 * 365 * 86_400_000;

export interface ClockReading {
  now: string;
  offsetMs: number;
}

/**
 * A vendor's sandbox clock: time there may run ahead of real time so a vendor can watch a monthly
 * subscription renew, fail, retry and end in seconds. It only moves forward, only in the sandbox,
 * and moving it runs the billing work that became due before answering.
 */
export function sandboxClockService(deps: { store: Store; clock: VendorClock; billing: Pick<BillingService, 'runDue'> }) {
  const mustBeSandbox = (scope: Scope) => {
    if (scope.environment !== 'sandbox') throw notFound('A movable clock (production time cannot be moved; use the sandbox URL)');
  };
  const reading = (scope: Scope): ClockReading => ({ now: deps.clock.now(scope).toISOString(), offsetMs: deps.clock.offsetOf(scope.vendorId) });

  async function refresh(): Promise<void> {
    for (const { vendorId, offsetMs } of await deps.store.sandboxClocks.list()) deps.clock.setOffset(vendorId, offsetMs);
  }

  return {
    /** Loads offsets other processes (the CLI, another server) have set. */
    refresh,

    async read(scope: Scope): Promise<ClockReading> {
      mustBeSandbox(scope);
      await refresh();
      return reading(scope);
    },

    /** Moves the sandbox clock forward by `seconds`, or to the instant `to`; then bills what is due. */
    async advance(scope: Scope, input: { seconds?: unknown; to?: unknown }): Promise<ClockReading & { billing: BillingReport }> {
      mustBeSandbox(scope);
      await refresh();
      const current = deps.clock.offsetOf(scope.vendorId);
      let offsetMs: number;
      if (input.to !== undefined && input.seconds !== undefined) throw invalidInput('Give either "seconds" or "to", not both.');
      if (input.to !== undefined) {
        const target = typeof input.to === 'string' && /^\d{4}-\d\d-\d\dT/.test(input.to) ? Date.parse(input.to) : NaN;
        if (Number.isNaN(target)) throw invalidInput('"to" must be an ISO-8601 time such as "2027-01-31T00:00:00.000Z".');
        offsetMs = target - deps.clock.real().getTime();
        if (offsetMs < current) throw invalidInput(`The sandbox clock only moves forward; it already reads ${reading(scope).now}.`);
      } else {
        const seconds = input.seconds;
        if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds <= 0)
          throw invalidInput('"seconds" must be a positive whole number of seconds (or give "to").');
        offsetMs = current + seconds * 1000;
      }
      if (offsetMs > MAX_OFFSET_MS) throw invalidInput('The sandbox clock can run at most 20 years ahead of real time.');
      await deps.store.sandboxClocks.set(scope.vendorId, offsetMs, deps.clock.real().toISOString());
      deps.clock.setOffset(scope.vendorId, offsetMs);
      const billing = await deps.billing.runDue({ sandboxVendorId: scope.vendorId });
      return { ...reading(scope), billing };
    },
  };
}

export type SandboxClockService = ReturnType<typeof sandboxClockService>;
