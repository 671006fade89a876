import { periodStartOf, retryAt } from './billing-period.ts';
import { scopeOf, type BillingContext, type BillingReport } from './billing-context.ts';
import { renewedEmail, stateAsIs } from './renewal-records.ts';
import type { ChargePlan, Plan } from './renewal-plan.ts';
import { isoString } from '../clock.ts';
import type { EmailEvent } from '../notifications/index.ts';
import { paymentEntry, settledAs, type ChargeResult } from '../payments/index.ts';
import type { BillingState, BillingWrite, ChargeAttempt } from '../ports.ts';

/** What a batch's write shares: its report, its e-mails (undefined while e-mails are off), when its attempts settle. */
export interface WriteBatch {
  report: BillingReport;
  emails: EmailEvent[] | undefined;
  settledAt: string;
}

/** One row's write in the making, against the row as it is now (locked). */
interface Row {
  current: BillingState;
  billing: NonNullable<BillingState['billing']>;
  write: BillingWrite;
  /** The step's time, as written. */
  at: string;
  /** Unchanged since it was planned: nobody cancelled, refunded or billed it in between. */
  unchanged: boolean;
}

type Paid = Extract<ChargeResult, { status: 'SUCCEEDED' }>;
type Declined = Extract<ChargeResult, { status: 'DECLINED' }>;

/** Statuses in which a paid renewal moves the subscription on to its next period. */
const BILLABLE: ReadonlySet<string> = new Set([
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
]);

/** A held row is claimed again once the wait for an unknown outcome has passed. */
const heldUntil = (ctx: BillingContext): string =>
  new Date(ctx.deps.clock.real().getTime() + ctx.unknownRetryMs).toISOString();

/** The write of one planned step, decided against the row as it is now (locked); its attempt settled at `settledAt`. */
export function resolve(
  ctx: BillingContext,
  p: Plan,
  current: BillingState,
  result: ChargeResult | undefined,
  attempt: ChargeAttempt | undefined,
  batch: WriteBatch,
): BillingWrite {
  const t = p.due.transaction;
  const at = isoString(p.at);
  const billing = current.billing ?? { anchor: at, period: 0, failedAttempts: 0 };
  const state = stateAsIs(current, billing);
  const write: BillingWrite = { transactionId: t.id, state, change: null, entry: null, attempt: null };
  const unchanged =
    current.status === t.status &&
    current.nextCharge === t.nextCharge &&
    billing.period === t.billing?.period &&
    billing.failedAttempts === t.billing?.failedAttempts;
  const row: Row = { current, billing, write, at, unchanged };

  if (p.kind === 'hold') {
    batch.report.errors.push(p.reason);
    state.leaseUntil = heldUntil(ctx);
    return write;
  }
  if (p.kind === 'clear') {
    if (unchanged) state.nextCharge = null;
    return write;
  }
  if (p.kind === 'end') return resolveEnd(row, batch.report);
  return resolveCharge(ctx, p, row, result, attempt, batch);
}

/** The end of a cancelled subscription's paid period, unless it changed since it was planned. */
function resolveEnd({ write, at, unchanged }: Row, report: BillingReport): BillingWrite {
  if (unchanged) {
    Object.assign(write.state, { status: 'SUBSCRIPTION_STATUS_CANCELLED', nextCharge: null });
    write.change = { flag: 'CHANGED_STATUS_CANCELLED', at };
    report.ended++;
  }
  return write;
}

/** A charge's outcome settles its attempt, then the row: unknown (asked again later), paid, or declined. */
function resolveCharge(
  ctx: BillingContext,
  p: ChargePlan,
  row: Row,
  result: ChargeResult | undefined,
  attempt: ChargeAttempt | undefined,
  batch: WriteBatch,
): BillingWrite {
  const { billing, write } = row;
  const outcome = result ?? { status: 'SUCCEEDED' as const, reference: '', feeMinor: 0 };
  if (attempt) write.attempt = { id: attempt.id, ...settledAs(outcome, attempt, batch.settledAt) };
  if (outcome.status === 'UNKNOWN') {
    // Held for a later ask while its period is still the one due; another worker may have booked it since (this one stalled past its lease).
    if (billing.period !== p.period) return write;
    batch.report.unknown++;
    write.state.leaseUntil = heldUntil(ctx);
    return write;
  }
  if (outcome.status === 'SUCCEEDED') return resolvePaid(ctx, p, row, outcome, attempt, batch);
  return resolveDeclined(p, row, outcome, attempt, batch);
}

/** A paid renewal: booked for its period, and the subscription moved on to the next one if it is still billed. */
function resolvePaid(
  ctx: BillingContext,
  p: ChargePlan,
  { current, billing, write, at }: Row,
  outcome: Paid,
  attempt: ChargeAttempt | undefined,
  { report, emails }: WriteBatch,
): BillingWrite {
  const t = p.due.transaction;
  const state = write.state;
  const samePeriod = billing.period === p.period;
  // Money moved for this period: the ledger records it even if the row changed meanwhile.
  if (samePeriod && attempt) {
    write.entry = paymentEntry({
      type: 'SUBSCRIPTION_PAYMENT',
      transaction: t,
      quote: p.quote,
      paid: outcome,
      provider: ctx.deps.gateways[t.environment].provider,
      fee: p.fee,
      at: p.at,
      periodStart: p.periodStart,
    });
    emails?.push(renewedEmail(t, write.entry.id));
  }
  const billable = BILLABLE.has(current.status);
  if (samePeriod && billable) {
    Object.assign(state, {
      status:
        current.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' ? current.status : 'SUBSCRIPTION_STATUS_ACTIVE',
      lastCharge: at,
      nextCharge: periodStartOf(billing, current.chargeFrequency, p.period + 1).toISOString(),
      period: p.period + 1,
      failedAttempts: 0,
    });
    write.change = { flag: 'CHANGED_STATUS_RENEWED', at };
    report.renewed++;
  }
  return write;
}

/** Declined: retried on the dunning schedule, then cancelled. */
function resolveDeclined(
  p: ChargePlan,
  { billing, write, at, unchanged }: Row,
  outcome: Declined,
  attempt: ChargeAttempt | undefined,
  { report, emails }: WriteBatch,
): BillingWrite {
  const t = p.due.transaction;
  const state = write.state;
  if (!unchanged) return write;
  report.declined++;
  const failedAttempts = billing.failedAttempts + 1;
  const retry = retryAt(new Date(p.periodStart), failedAttempts);
  // The customer is told: a bank holding the payment for authentication is asked for, any other decline is a failure.
  const kind = outcome.code === 'authentication_required' ? 'ACTION_REQUIRED' : 'PAYMENT_FAILED';
  const amount = {
    currency: attempt?.currency ?? p.quote.currency,
    totalMinor: attempt?.amountMinor ?? p.quote.totalMinor,
  };
  const failure = (date: string | null): EmailEvent => ({
    kind,
    scope: scopeOf(t),
    key: `${kind}:${p.key}`,
    facts: { transactionId: t.id, date, amount },
  });
  if (retry) {
    // Tries stay at least a day apart even when a stopped worker left several overdue.
    const next = Math.max(retry.getTime(), p.at.getTime() + 86_400_000);
    Object.assign(state, { failedAttempts, nextCharge: new Date(next).toISOString() });
    emails?.push(failure(state.nextCharge));
  } else {
    emails?.push(failure(null));
    Object.assign(state, {
      status: 'SUBSCRIPTION_STATUS_CANCELLED',
      whoCanceled: 'NEXT_CHARGE_FAILED',
      nextCharge: null,
      failedAttempts,
    });
    write.change = { flag: 'CHANGED_STATUS_CANCELLED', at };
    report.failed++;
  }
  return write;
}
