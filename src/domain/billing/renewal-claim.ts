import { scopeOf, type BillingContext, type BillingReport } from './billing-context.ts';
import { newPriceCache, planStep, type ChargePlan, type Plan } from './renewal-plan.ts';
import { write } from './renewal-write.ts';
import { pendingAttempt, type RenewalPlan } from '../payments/index.ts';
import type { ChargeAttempt, ClaimCursor, Repositories } from '../ports.ts';

export type ClaimQuery = Parameters<Repositories['billing']['claimDue']>[0];

/** A claimed batch whose attempts are on record: the charges this worker is to ask about. */
export interface Claimed {
  toAsk: ChargePlan[];
  attempts: Map<string, ChargeAttempt>;
  /** Every row claimed was in flight at another worker. */
  allElsewhere: boolean;
  /** Where the next claim goes on from. */
  cursor: ClaimCursor;
}

/** A free period needs no gateway; no stored method is a decline without one. */
const charged = (p: Plan): p is ChargePlan => p.kind === 'charge' && p.quote.totalMinor > 0 && p.due.token !== null;

/** A retry after the bank held the try before for authentication cancels that held payment first. */
async function findHeldPayments(repos: Repositories, plans: Plan[]): Promise<void> {
  for (const p of plans) {
    const tries = p.kind === 'charge' ? (p.due.transaction.billing?.failedAttempts ?? 0) : 0;
    if (p.kind !== 'charge' || tries === 0) continue;
    const before = await repos.chargeAttempts.findByKey(`renewal:${p.due.transaction.id}:${p.period}:${tries - 1}`);
    if (before?.failureCode === 'authentication_required' && before.gatewayReference)
      p.heldPayment = before.gatewayReference;
  }
}

/** The open attempt of a charge about to be asked, with the plan the reconciler books it by. */
function attemptOf(p: ChargePlan, now: Date) {
  return pendingAttempt({
    scope: scopeOf(p.due.transaction),
    kind: 'RENEWAL',
    key: p.key,
    transactionId: p.due.transaction.id,
    amountMinor: p.quote.totalMinor,
    currency: p.quote.currency,
    now,
    plan: {
      quote: {
        currency: p.quote.currency,
        netMinor: p.quote.netMinor,
        taxMinor: p.quote.taxMinor,
        taxRate: p.quote.taxRate,
      },
      period: p.period,
      periodStart: p.periodStart,
    } satisfies RenewalPlan,
  });
}

/**
 * Claims a batch, plans each step and records the charge attempts, inside the caller's database
 * transaction: when it commits, every charge about to be made is on record, and that open attempt
 * holds its row from other workers until it is settled (or `leaseMs` has passed: a crashed worker's).
 * A step that asks no gateway (an end, a free period, no stored method) is written at once, against
 * the row the claim just read and locked. Undefined when nothing is due.
 */
export async function claimAndPlan(
  ctx: BillingContext,
  repos: Repositories,
  query: ClaimQuery,
  report: BillingReport,
): Promise<Claimed | undefined> {
  const batch = await repos.billing.claimDue(query);
  if (batch.length === 0) return undefined;
  const prices = newPriceCache();
  const plans: Plan[] = [];
  for (const due of batch) plans.push(await planStep(ctx, repos, due, prices));
  await findHeldPayments(repos, plans);
  const toCharge = plans.filter(charged);
  const now = ctx.deps.clock.real();
  const recorded = toCharge.map((p) => attemptOf(p, now));
  const attempts = await repos.billing.recordAttempts(recorded);
  // Another worker that claimed the row at the same moment recorded it first and is asking now: its
  // charge, not ours. "In flight" is the claim's own test (PENDING, recorded after attemptsSince).
  const mine = new Set(recorded.map((a) => a.id));
  const inFlightElsewhere = (p: ChargePlan) => {
    const a = attempts.get(p.key)!;
    return !mine.has(a.id) && a.status === 'PENDING' && a.createdAt > query.attemptsSince;
  };
  const withoutGateway = plans.filter((p) => !charged(p));
  if (withoutGateway.length > 0)
    await write(ctx, repos, { plans: withoutGateway, attempts: new Map(), results: new Map() }, report);
  const toAsk = toCharge.filter((p) => !inFlightElsewhere(p));
  const last = batch.at(-1)!.transaction;
  const cursor: ClaimCursor = { nextCharge: last.nextCharge!, id: last.id };
  return { toAsk, attempts, allElsewhere: toAsk.length + withoutGateway.length === 0, cursor };
}
