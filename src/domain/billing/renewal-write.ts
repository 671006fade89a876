import type { BillingContext, BillingReport } from './billing-context.ts';
import { resolve } from './renewal-outcome.ts';
import type { Plan } from './renewal-plan.ts';
import { isoString } from '../clock.ts';
import type { EmailEvent } from '../notifications/index.ts';
import type { ChargeResult } from '../payments/index.ts';
import type { ChargeAttempt, Repositories } from '../ports.ts';

/** A batch whose charges were asked: what remains is its write. */
export interface Charged {
  plans: Plan[];
  attempts: Map<string, ChargeAttempt>;
  results: Map<string, ChargeResult>;
}

/** A renewal's decline without asking any gateway. */
const NO_METHOD: ChargeResult = {
  status: 'DECLINED',
  code: 'card_declined',
  message: 'No stored payment method.',
  permanent: true,
};

/** Writes a charged batch's outcomes, inside the caller's database transaction, against its rows as they are now. */
export async function write(
  ctx: BillingContext,
  repos: Repositories,
  { plans, attempts, results }: Charged,
  report: BillingReport,
): Promise<void> {
  if (plans.length === 0) return;
  // No e-mail events are made at all while e-mails are off: this is the billing hot path.
  const emails: EmailEvent[] | undefined = ctx.deps.emails?.enabled ? [] : undefined;
  const current = await repos.billing.lockMany(plans.map((p) => p.due.transaction.id));
  const batch = { report, emails, settledAt: isoString(ctx.deps.clock.real()) };
  const writes = plans.map((p) => {
    const key = p.kind === 'charge' ? p.key : undefined;
    const result =
      key === undefined
        ? undefined
        : (results.get(key) ??
          (p.due.token === null && p.kind === 'charge' && p.quote.totalMinor > 0 ? NO_METHOD : undefined));
    return resolve(
      ctx,
      p,
      current.get(p.due.transaction.id)!,
      result,
      key === undefined ? undefined : attempts.get(key),
      batch,
    );
  });
  await repos.billing.apply(writes);
  if (emails) await ctx.deps.emails?.record(repos, emails);
}
