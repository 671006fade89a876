import { AsyncResource } from 'node:async_hooks';
import { emptyBillingReport } from './domain/billing/index.ts';
import type { EmailReport } from './domain/notifications/index.ts';
import type { ProcessorEventReport } from './domain/processor/index.ts';
import type { WorkerReport } from './domain/reports/index.ts';
import type { Services } from './services.ts';

/** The services the worker runs; without `processorEvents` or `emails` (some tests) it does not run those. */
type WorkerServices = Pick<Services, 'billing' | 'sandboxClock' | 'reconciler'> &
  Partial<Pick<Services, 'processorEvents' | 'emails' | 'webhooks'>>;

const NO_EVENTS: ProcessorEventReport = { processed: 0, failed: 0, ignored: 0, refused: 0 };
const NO_EMAILS: EmailReport = { queued: 0, sent: 0, retried: 0, failed: 0, skipped: 0, more: false };

/** Batches each clock (real time, then each sandbox running ahead) may run before the next clock's turn. */
const BATCHES_PER_CLOCK = 8;

/**
 * Does everything due now: billing, the processor's events (which settle what they can before the
 * reconciler asks), then the reconciler for attempts whose gateway answer was lost.
 */
export async function runWorkerOnce(services: WorkerServices): Promise<WorkerReport> {
  await services.sandboxClock.refresh();
  const report = await services.billing.runDue();
  const events = (await services.processorEvents?.runDue()) ?? NO_EVENTS;
  const emails = (await services.emails?.runDue(Infinity)) ?? NO_EMAILS;
  await services.webhooks?.runDue();
  return { ...report, events, emails, attempts: await services.reconciler.run() };
}

/** What a run of the e-mail loop reports: its e-mails, beside billing's steps, none of which it took. */
const emailsOnly = (emails: EmailReport): WorkerReport => ({
  ...emptyBillingReport(),
  events: NO_EVENTS,
  attempts: { settled: 0, voided: 0, open: 0, unresolved: 0, expiredSessions: 0 },
  emails,
});

interface LoopOptions {
  intervalMs: number;
  onReport?: (report: WorkerReport) => void;
  /** A run that failed: of billing (with the processor's events and the reconciler), of the e-mail outbox, or of the webhooks'. */
  onError: (err: unknown, loop: WorkerLoop) => void;
}

export type WorkerLoop = 'billing' | 'emails' | 'webhooks';

/** How a failed run of a loop is reported (the server's log and `opentill worker` say it alike). */
export const failedRun = (loop: WorkerLoop): string =>
  `${{ billing: 'billing', emails: 'e-mail', webhooks: 'webhook' }[loop]} run failed`;

/**
 * Runs `step` every `intervalMs`, and again at once when it says work is left or `wake` was called
 * while it ran; runs never overlap. `stop` lets the current run finish.
 */
function loop(
  step: (stopped: () => boolean) => Promise<{ again: boolean }>,
  options: { intervalMs: number; onError: (err: unknown) => void },
) {
  let running: Promise<void> | undefined;
  let stopped = false;
  let again = false;
  const run = () => {
    if (running || stopped) return;
    again = false;
    running = (async () => {
      try {
        again = (await step(() => stopped)).again || again;
      } catch (err) {
        options.onError(err);
      } finally {
        running = undefined;
        if (again) setImmediate(run);
      }
    })();
  };
  const timer = setInterval(run, options.intervalMs);
  run();
  return {
    /** Run now, or once more as soon as the current run ends. */
    wake(): void {
      if (running) again = true;
      else run();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * The customer e-mail outbox, sent by a loop of its own beside billing (docs/operations.md): an SMTP
 * server that does not answer holds back e-mails, never a renewal or the reconciler. Each message has a
 * deadline (`CustomerEmailOptions.sendDeadlineMs`), after which it is tried again later.
 */
function startEmailLoop(emails: NonNullable<WorkerServices['emails']>, options: LoopOptions) {
  return loop(
    async (stopped) => {
      const report = await emails.runDue(20_000, stopped);
      if (eventful(emailsOnly(report))) options.onReport?.(emailsOnly(report));
      return { again: report.more };
    },
    { intervalMs: options.intervalMs, onError: (err) => options.onError(err, 'emails') },
  );
}

/**
 * The webhook outbox, sent by a loop of its own like the e-mails' (docs/decisions.md §27): a receiver
 * that hangs holds back webhooks (each try has its time limit), never billing or the e-mails.
 */
function startWebhookLoop(webhooks: NonNullable<WorkerServices['webhooks']>, options: LoopOptions) {
  return loop(
    async (stopped) => {
      const report = await webhooks.runDue(20_000, stopped);
      return { again: report.more };
    },
    { intervalMs: Math.min(options.intervalMs, 5_000), onError: (err) => options.onError(err, 'webhooks') },
  );
}

/**
 * Runs the billing engine and the attempt reconciler every `intervalMs`: inside `opentill serve` by default, or alone as
 * `opentill worker`. Runs never overlap; `stop` lets the current one finish (its batch is one
 * database transaction, so stopping never leaves half a step). Customer e-mails go out from a loop of
 * their own, woken after each billing run.
 *
 * A run is fair (docs/decisions.md, "15. Billing"): real time first, then every sandbox whose clock
 * was moved, each for at most `batchesPerClock` batches, handing the event loop back to waiting
 * requests between batches. A sandbox catching up years therefore never holds the database for
 * long; a run that stopped with work left is followed at once by the next instead of after the
 * interval, and moving a sandbox clock in this process wakes the worker. The reconciler, which asks
 * gateways again, runs once per interval, not on every run of a catch-up.
 */
export function startBillingWorker(services: WorkerServices, options: LoopOptions & { batchesPerClock?: number }) {
  let reconciledAt = -Infinity;
  /** What runs did since the last report: a catch-up in many short runs is reported about once per interval. */
  let unreported: WorkerReport | undefined;
  let reportedAt = Date.now();
  const pause = () => new Promise<void>((resume) => setImmediate(resume));
  const emails = services.emails?.enabled ? startEmailLoop(services.emails, options) : undefined;
  const webhooks = services.webhooks ? startWebhookLoop(services.webhooks, options) : undefined;

  const billingLoop = loop(
    async () => {
      await services.sandboxClock.refresh();
      let caughtUp = true;
      const billing = await services.billing.runDue({
        batchesPerClock: options.batchesPerClock ?? BATCHES_PER_CLOCK,
        pause,
        onWorkLeft: () => (caughtUp = false),
      });
      // The batch's e-mails go out now, beside whatever billing does next.
      emails?.wake();
      webhooks?.wake();
      const events = (await services.processorEvents?.runDue()) ?? NO_EVENTS;
      const reconcile = Date.now() - reconciledAt >= options.intervalMs;
      if (reconcile) reconciledAt = Date.now();
      const report = {
        ...billing,
        events,
        emails: NO_EMAILS,
        attempts: reconcile
          ? await services.reconciler.run()
          : { settled: 0, voided: 0, open: 0, unresolved: 0, expiredSessions: 0 },
      };
      unreported = unreported ? sum(unreported, report) : report;
      // A report holds at most one reconciler run, so its `open` count is a reading, not a sum.
      if (caughtUp || reconcile || Date.now() - reportedAt >= options.intervalMs) {
        options.onReport?.(unreported);
        unreported = undefined;
        reportedAt = Date.now();
      }
      return { again: !caughtUp };
    },
    { intervalMs: options.intervalMs, onError: (err) => options.onError(err, 'billing') },
  );
  // Bound to the worker's own async context: a run a request woke is not part of that request.
  const unsubscribe = services.sandboxClock.onMoved(AsyncResource.bind(() => billingLoop.wake()));
  return {
    async stop(): Promise<void> {
      unsubscribe();
      await Promise.all([billingLoop.stop(), emails?.stop(), webhooks?.stop()]);
      if (unreported) options.onReport?.(unreported);
    },
  };
}

function sum(a: WorkerReport, b: WorkerReport): WorkerReport {
  return {
    renewed: a.renewed + b.renewed,
    declined: a.declined + b.declined,
    ended: a.ended + b.ended,
    failed: a.failed + b.failed,
    unknown: a.unknown + b.unknown,
    expiredOffers: a.expiredOffers + b.expiredOffers,
    errors: [...a.errors, ...b.errors],
    emails: {
      queued: a.emails.queued + b.emails.queued,
      sent: a.emails.sent + b.emails.sent,
      retried: a.emails.retried + b.emails.retried,
      failed: a.emails.failed + b.emails.failed,
      skipped: a.emails.skipped + b.emails.skipped,
      more: b.emails.more,
    },
    events: {
      processed: a.events.processed + b.events.processed,
      failed: a.events.failed + b.events.failed,
      ignored: a.events.ignored + b.events.ignored,
      refused: a.events.refused + b.events.refused,
    },
    attempts: {
      settled: a.attempts.settled + b.attempts.settled,
      voided: a.attempts.voided + b.attempts.voided,
      open: a.attempts.open + b.attempts.open,
      unresolved: a.attempts.unresolved + b.attempts.unresolved,
      expiredSessions: a.attempts.expiredSessions + b.attempts.expiredSessions,
    },
  };
}

/** True when the report says something happened, so quiet runs log nothing. */
export function eventful(report: WorkerReport): boolean {
  const { attempts } = report;
  return (
    report.renewed +
      report.declined +
      report.ended +
      report.failed +
      report.unknown +
      report.expiredOffers +
      report.errors.length >
      0 ||
    attempts.settled + attempts.voided + attempts.unresolved > 0 ||
    report.events.processed + report.events.failed + report.events.refused > 0 ||
    report.emails.queued + report.emails.sent + report.emails.retried + report.emails.failed + report.emails.skipped > 0
  );
}
