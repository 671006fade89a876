import type { BillingReport } from './domain/billing.ts';
import type { Services } from './services.ts';

/**
 * Runs the billing engine every `intervalMs`: inside `opentill serve` by default, or alone as
 * `opentill worker`. Runs never overlap; `stop` lets the current one finish (its batch is one
 * database transaction, so stopping never leaves half a step).
 */
export function startBillingWorker(
  services: Pick<Services, 'billing' | 'sandboxClock'>,
  options: { intervalMs: number; onReport?: (report: BillingReport) => void; onError: (err: unknown) => void },
) {
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      try {
        await services.sandboxClock.refresh();
        const report = await services.billing.runDue();
        options.onReport?.(report);
      } catch (err) {
        options.onError(err);
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(tick, options.intervalMs);
  tick();
  return {
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** True when the report says something happened, so quiet runs log nothing. */
export function eventful(report: BillingReport): boolean {
  return report.renewed + report.declined + report.ended + report.failed + report.unknown + report.expiredOffers + report.errors.length > 0;
}
