import { emptyBillingReport, type BillingContext, type BillingReport } from './billing-context.ts';
import { ask } from './renewal-charge.ts';
import { claimAndPlan, type ClaimQuery } from './renewal-claim.ts';
import { write, type Charged } from './renewal-write.ts';
import type { VendorClock } from '../clock.ts';
import type { ClaimCursor } from '../ports.ts';

export interface RunDueOptions {
  sandboxVendorId?: string;
  /** Stops after this many batches in all. */
  maxBatches?: number;
  /** Ends each clock's turn after this many batches. */
  batchesPerClock?: number;
  /** Called with each clock (undefined: real time) whose turn ended with work perhaps left. */
  onWorkLeft?: (sandboxVendorId: string | undefined) => void;
  /** Awaited between batches and between clocks: the worker lets waiting requests have the event loop and the database. */
  pause?: () => Promise<void>;
}

/** One run of what is due, across its clocks. */
interface Run {
  ctx: BillingContext;
  only: RunDueOptions;
  report: BillingReport;
  /** Batches in all, for `maxBatches`. */
  batches: number;
  /** The batch asked but not written yet: its write goes with the next claim. */
  unwritten: Charged | undefined;
}

/** Real time (no sandbox vendor) or a sandbox's moved clock. */
interface Clock {
  sandboxVendorId?: string;
  offsetMs: number;
}

/** How a clock's turn ended: caught up (`finished`), out of batches for the whole run (`stop`), or neither. */
interface TurnEnd {
  dueBy: string;
  finished: boolean;
  stop: boolean;
}

function clocksOf(clock: VendorClock, sandboxVendorId: string | undefined): Clock[] {
  return sandboxVendorId
    ? [{ sandboxVendorId, offsetMs: clock.offsetOf(sandboxVendorId) }]
    : [{ offsetMs: 0 }, ...clock.ahead().map(([sandboxVendorId, offsetMs]) => ({ sandboxVendorId, offsetMs }))];
}

/**
 * A batch's write and the next batch's claim share one database transaction, so a batch costs one
 * commit: the write of the batch before, then the claim and the recorded attempts of this one,
 * committed before its charges are asked. Without a query, only the write.
 */
async function writeThenClaim(run: Run, query?: ClaimQuery) {
  const { ctx, report } = run;
  const claimed = await ctx.deps.store.transaction(async (repos) => {
    if (run.unwritten) await write(ctx, repos, run.unwritten, report);
    return query && claimAndPlan(ctx, repos, query, report);
  });
  run.unwritten = undefined;
  return claimed;
}

/** One clock's turn: batch after batch until nothing is due by its time, or its turn or the run's batches are used up. */
async function clockTurn(run: Run, c: Clock): Promise<TurnEnd> {
  const { ctx, only } = run;
  let dueBy: string;
  let turn = 0;
  let finished = false;
  let stop = false;
  // Each claim goes on where the one before ended; once nothing is due past that, the start is
  // looked at again (rows skipped while locked, or renewed into a period that is due already),
  // and the clock is done only when nothing is due from the start.
  let after: ClaimCursor | undefined;
  for (;;) {
    const real = ctx.deps.clock.real();
    dueBy = new Date(real.getTime() + c.offsetMs).toISOString();
    const claimed = await writeThenClaim(run, {
      dueBy,
      sandboxVendorId: c.sandboxVendorId,
      now: real.toISOString(),
      attemptsSince: new Date(real.getTime() - ctx.leaseMs).toISOString(),
      limit: ctx.batchSize,
      after,
    });
    if (!claimed && after) {
      after = undefined;
      continue;
    }
    if (!claimed) {
      finished = true;
      break;
    }
    after = claimed.cursor;
    // Every row claimed was in flight at another worker (a claim at the same instant as its own):
    // this clock's turn ends rather than claim them again before that worker's attempts are visible.
    if (claimed.allElsewhere) break;
    run.unwritten = await ask(ctx, claimed);
    if (only.maxBatches !== undefined && ++run.batches >= only.maxBatches) {
      stop = true;
      break;
    }
    if (only.batchesPerClock !== undefined && ++turn >= only.batchesPerClock) break;
    await only.pause?.();
  }
  if (run.unwritten) await writeThenClaim(run);
  return { dueBy, finished, stop };
}

/**
 * Does what is due now: in every environment by real time first, then in each sandbox whose
 * clock was moved, by its own time. With `sandboxVendorId`, only that vendor's sandbox. With
 * `batchesPerClock`, each clock's turn ends after that many batches, so a sandbox catching up
 * years takes turns with real time and other vendors; `onWorkLeft` hears of each clock whose
 * turn so ended, and the next run goes on where this one stopped.
 */
export async function runDue(ctx: BillingContext, only: RunDueOptions = {}): Promise<BillingReport> {
  const run: Run = { ctx, only, report: emptyBillingReport(), batches: 0, unwritten: undefined };
  for (const c of clocksOf(ctx.deps.clock, only.sandboxVendorId)) {
    const { dueBy, finished, stop } = await clockTurn(run, c);
    if (stop) return run.report;
    // A clock whose turn ended with work left expires its offers once it has caught up.
    if (finished) run.report.expiredOffers += await ctx.deps.store.billing.expireOffers(dueBy, c.sandboxVendorId);
    else only.onWorkLeft?.(c.sandboxVendorId);
    await only.pause?.();
  }
  return run.report;
}
