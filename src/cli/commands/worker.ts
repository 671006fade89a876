import type { Command } from 'commander';
import type { Services } from '../../services.ts';
import { print, run } from '../output.ts';
import { configOrFail, withServices } from '../with-services.ts';

/** `opentill worker`: the billing worker on its own (docs/decisions.md, "15. Billing"). */
export function registerWorkerCommand(program: Command) {
  program
    .command('worker')
    .description('run the billing worker (renewals, trials, dunning, period ends, offer expiry); `serve` runs one too unless OPENTILL_WORKER=false')
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

/** Bills every interval until SIGTERM or Ctrl-C, then lets the current batch finish before closing. */
async function runUntilStopped(json: boolean) {
  const config = configOrFail(json);
  const [{ createServices }, { eventful, startBillingWorker }] = await Promise.all([import('../../services.ts'), import('../../worker.ts')]);
  const services: Services = createServices(config);
  await services.maintenance.migrate();
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  const worker = startBillingWorker(services, {
    intervalMs: config.billing.intervalSeconds * 1000,
    onReport: (report) => eventful(report) && log(JSON.stringify({ billing: report })),
    onError: (err) => log(`billing run failed: ${(err as Error).stack ?? err}`),
  });
  log(`billing worker running every ${config.billing.intervalSeconds} s; SIGTERM or Ctrl-C stops it after the current batch`);
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await worker.stop();
  await services.close();
}
