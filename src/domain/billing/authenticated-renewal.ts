import { periodStartOf } from './billing-period.ts';
import type { BillingContext } from './billing-context.ts';
import { renewedEmail, stateAsIs } from './renewal-records.ts';
import { askGateway, paymentEntry, pendingAttempt, vendorFeeTerms } from '../payments/index.ts';
import type { PaymentGateway, RenewalPlan } from '../payments/index.ts';
import type { BillingWrite, ChargeAttempt, Repositories } from '../ports.ts';

export type AuthenticatedRenewal = 'BOOKED' | 'ALREADY_BOOKED' | 'NOT_PAID' | 'PENDING';

/** A held renewal the processor found paid: what booking it needs. */
interface Found {
  held: ChargeAttempt;
  transactionId: string;
  plan: RenewalPlan;
  reference: string;
  feeMinor: number;
  gateway: PaymentGateway;
  now: Date;
}

/**
 * A renewal the customer's bank held for authentication (3-D Secure) and the customer then
 * authenticated, from the management page or as the processor reports: its payment is booked
 * for its period, once, whichever path gets here first. A subscription cancelled for that failed
 * renewal is active again: the customer paid for the period.
 */
export async function bookAuthenticated(
  ctx: BillingContext,
  held: ChargeAttempt,
  reference: string,
): Promise<AuthenticatedRenewal> {
  if (held.kind !== 'RENEWAL' || !held.transactionId || !held.plan) return 'NOT_PAID';
  const gateway = ctx.deps.gateways[held.scope.environment];
  const found = await askGateway(() => gateway.lookupCharge(held.id, reference), ctx.gatewayTimeoutMs);
  if (found.status === 'UNKNOWN') return 'PENDING';
  if (found.status !== 'SUCCEEDED') return 'NOT_PAID';
  const paid: Found = {
    held,
    transactionId: held.transactionId,
    plan: held.plan,
    reference,
    feeMinor: found.feeMinor,
    gateway,
    now: ctx.deps.clock.real(),
  };
  return ctx.deps.store.transaction((repos) => bookFound(ctx, repos, paid));
}

/** Books a found payment once, keyed by its reference, in the caller's database transaction. */
async function bookFound(
  { deps }: BillingContext,
  repos: Repositories,
  { held, transactionId, plan, reference, feeMinor, gateway, now }: Found,
): Promise<AuthenticatedRenewal> {
  const recorded = await repos.chargeAttempts.record(
    pendingAttempt({
      scope: held.scope,
      kind: 'RENEWAL',
      key: `renewal-auth:${reference}`,
      transactionId,
      amountMinor: held.amountMinor,
      currency: held.currency,
      now,
      plan: null,
    }),
  );
  if (!recorded.fresh) return 'ALREADY_BOOKED';
  const current = (await repos.billing.lockMany([transactionId])).get(transactionId);
  const transaction = await repos.transactions.find(held.scope, transactionId);
  if (!current?.billing || !transaction)
    throw new Error(`authenticated renewal ${held.key}: transaction ${transactionId} is gone`);
  const billing = current.billing;
  const at = deps.clock.now(held.scope);
  const write: BillingWrite = {
    transactionId,
    state: stateAsIs(current, billing),
    change: null,
    entry: null,
    attempt: {
      id: recorded.attempt.id,
      status: 'SUCCEEDED',
      gatewayReference: reference,
      failureCode: null,
      updatedAt: now.toISOString(),
    },
  };
  // Another try of the same period already booked this payment (it found it completed when it went to cancel it).
  if (billing.period !== plan.period) {
    await repos.billing.apply([write]);
    return 'ALREADY_BOOKED';
  }
  write.entry = paymentEntry({
    type: 'SUBSCRIPTION_PAYMENT',
    transaction,
    quote: plan.quote,
    paid: { reference, feeMinor },
    provider: gateway.provider,
    fee: await vendorFeeTerms(repos, transaction.vendorId, deps),
    at,
    periodStart: plan.periodStart,
  });
  const failedOut = current.status === 'SUBSCRIPTION_STATUS_CANCELLED' && current.whoCanceled === 'NEXT_CHARGE_FAILED';
  const billable =
    failedOut || ['SUBSCRIPTION_STATUS_ACTIVE', 'SUBSCRIPTION_STATUS_CANCELLED_PENDING'].includes(current.status);
  if (billable) {
    Object.assign(write.state, {
      status:
        current.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' ? current.status : 'SUBSCRIPTION_STATUS_ACTIVE',
      whoCanceled: failedOut ? null : current.whoCanceled,
      lastCharge: at.toISOString(),
      nextCharge: periodStartOf(billing, current.chargeFrequency, plan.period + 1).toISOString(),
      period: plan.period + 1,
      failedAttempts: 0,
    });
    write.change = { flag: 'CHANGED_STATUS_RENEWED', at: at.toISOString() };
  }
  await repos.billing.apply([write]);
  await deps.emails?.record(repos, [renewedEmail(transaction, write.entry.id)]);
  return 'BOOKED';
}
