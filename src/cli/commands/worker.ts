import type { Command } from 'commander';
import type { Services } from '../../services.ts';
import { io, print, run } from '../output.ts';
import { configOrFail, withServices } from '../with-services.ts';

/** `opentill worker`: the billing worker on its own (docs/decisions.md, "15. Billing"). */
export function registerWorkerCommand(program: Command) {
  program
    .command('worker')
    .description(
      'run the billing worker (renewals, trials, dunning, period ends, offer expiry); `serve` runs one too unless OPENTILL_WORKER=false',
    )
    .option('--once', 'do everything due now, print what was done, and exit')
    .option('--json', 'print JSON')
    .action(async (opts: { once?: boolean; json?: boolean }) =>
      run(!!opts.json, async () => {
        if (opts.once) {
          return withServices(async (services) => {
            const { runWorkerOnce } = await import('../../worker.ts');
            const b = await runWorkerOnce(services);
            const a = b.attempts;
            print(
              !!opts.json,
              b,
              () =>
                `Billing: ${b.renewed} renewed, ${b.declined} declined, ${b.ended} ended, ${b.failed} cancelled after failed retries, ${b.unknown} unknown, ${b.expiredOffers} offers expired, ${b.errors.length} held.\n` +
                `Charge attempts: ${a.settled} settled, ${a.voided} voided, ${a.open} still unknown, ${a.unresolved} unresolved.\n` +
                `Customer e-mails: ${b.emails.sent} sent, ${b.emails.retried} to try again, ${b.emails.failed} given up, ${b.emails.skipped} turned off.`,
            );
          });
        }
        await runUntilStopped(!!opts.json);
      }),
    );
}

/**
 * Bills every interval until SIGTERM or Ctrl-C, then lets the current batch finish before closing. A
 * database that does not answer, at the start or later, is waited for (docs/operations.md): the worker
 * neither exits nor logs every failed run.
 */
async function runUntilStopped(json: boolean) {
  const config = configOrFail(json);
  const [
    { createServices },
    { eventful, failedRun, startBillingWorker },
    { whenDatabaseAnswers },
    { repeatedFailures },
  ] = await Promise.all([
    import('../../services.ts'),
    import('../../worker.ts'),
    import('../../database-wait.ts'),
    import('../../repeated-failures.ts'),
  ]);
  const services: Services = createServices(config);
  const log = (line: string) => io().out(`${new Date().toISOString()} ${line}\n`);
  let stopping = false;
  const stopped = new Promise<void>((resolveStop) => {
    const stop = () => {
      stopping = true;
      resolveStop();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  const migrated = await whenDatabaseAnswers(() => services.maintenance.migrate(), { log, stopping: () => stopping });
  if (migrated === undefined) return services.close();
  const failures = repeatedFailures(({ message, details }) => log(`${message}: ${describe(details)}`));
  const worker = startBillingWorker(services, {
    intervalMs: config.billing.intervalSeconds * 1000,
    onReport: (report) => eventful(report) && log(JSON.stringify({ billing: report })),
    onError: (err, loop) => failures.report(failedRun(loop), err),
  });
  log(
    `billing worker running every ${config.billing.intervalSeconds} s; SIGTERM or Ctrl-C stops it after the current batch`,
  );
  await stopped;
  await worker.stop();
  failures.stop();
  await services.close();
}

/** A failure line's details as the worker's plain log writes them: the error's stack, or how many more there were. */
function describe(details: Record<string, unknown>): string {
  if (typeof details.repeated === 'number') return `${details.repeated} more times in ${String(details.seconds)} s`;
  const err = details.err as { stack?: string } | undefined;
  return err?.stack ?? String(err);
}
