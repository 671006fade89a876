import type { Command } from 'commander';
import type { PauseOutcome } from '../../domain/billing/index.ts';
import type { Environment } from '../../domain/model.ts';
import { environment } from '../option-parsers.ts';
import { print, run } from '../output.ts';
import { withServices } from '../with-services.ts';

interface SubscriptionOptions {
  vendor: string;
  env: Environment;
  resumeAt?: string;
  json?: boolean;
}

const pauseJson = ({ transaction: t, changed }: PauseOutcome) => ({
  id: t.id,
  transactionStatus: t.status,
  changed,
  nextCharge: t.nextCharge,
  pause: t.pause ? { startsAt: t.pause.startsAt, resumesAt: t.pause.resumesAt } : null,
});

/** One line a person reads: what the subscription does next. */
function pauseText({ transaction: t, changed }: PauseOutcome): string {
  const unchanged = changed ? '' : ' (nothing changed)';
  const p = t.pause;
  if (p && (p.resumesAt === null || p.resumesAt === t.nextCharge))
    return `Subscription ${t.id} is paused from ${p.startsAt} ${p.resumesAt ? `until ${p.resumesAt}, when it is charged again` : 'until it is resumed'}${unchanged}.`;
  return `Subscription ${t.id} is not paused; next charge ${t.nextCharge ?? 'none'}${unchanged}.`;
}

/** `opentill subscription pause|resume` (docs/decisions.md §41): the vendor's own, each safe to run again. */
export function registerSubscriptionCommands(program: Command) {
  const subscription = program.command('subscription').description("pause and resume a vendor's subscriptions");
  const scoped = (command: Command) =>
    command
      .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
      .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
      .option('--json', 'print JSON');

  scoped(
    subscription
      .command('pause <transactionId>')
      .description('pause a subscription at the end of its paid period: nothing is charged until it is resumed')
      .option('--resume-at <date>', 'resume then: a new period starts and is charged, e.g. 2030-04-01T00:00:00Z'),
  ).action(async (id: string, opts: SubscriptionOptions) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        const scope = { vendorId: opts.vendor, environment: opts.env };
        const outcome = await services.transactions.pauses.pause(scope, id, opts.resumeAt ?? null);
        print(!!opts.json, pauseJson(outcome), () => pauseText(outcome));
      }),
    ),
  );

  scoped(
    subscription
      .command('resume <transactionId>')
      .description('resume a paused subscription now: a new period starts and is charged now'),
  ).action(async (id: string, opts: SubscriptionOptions) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        const scope = { vendorId: opts.vendor, environment: opts.env };
        const outcome = await services.transactions.pauses.resume(scope, id);
        print(!!opts.json, pauseJson(outcome), () => pauseText(outcome));
      }),
    ),
  );
}
