import { AppError } from '../errors.ts';
import type { Scope } from '../model.ts';
import type { PurchasePlan } from '../payments/index.ts';
import type { AttemptOf } from '../ports.ts';
import { recordPurchaseAttempt } from './coupon-redemptions.ts';
import { isSession, latestAttempt, requireBound } from './form-keys.ts';
import { resultOf, resume } from './purchase-outcomes.ts';
import { attemptOf, prepare } from './purchase-plan.ts';
import type { BrowserPaymentStart, PurchaseRequest, Purchasing } from './purchase-request.ts';

/**
 * A purchase paid in the processor's element in the browser: the attempt is recorded and a
 * session of the processor's started under it, for the amount priced here, never the browser's;
 * the browser confirms it (3-D Secure included) and `status` settles it. Nothing to pay and no
 * card to keep (a free one-time purchase): booked at once. With `sessions: false` (a form sent
 * without its script, which could not use one) no session is started: NEEDS_BROWSER instead.
 */
export async function startBrowserPayment(
  purchasing: Purchasing,
  scope: Scope,
  request: Omit<PurchaseRequest, 'card'> & { attemptKey: string },
  options: { sessions: boolean } = { sessions: true },
): Promise<BrowserPaymentStart> {
  const { deps, booking } = purchasing;
  const latest = await latestAttempt(deps, request.attemptKey);
  requireBound(scope, latest, request);
  if (latest.attempt) {
    const open = latest.attempt.status === 'PENDING' || latest.attempt.status === 'UNKNOWN';
    if (!open || !isSession(latest.attempt)) return resume(purchasing, scope, latest.attempt);
    return options.sessions ? session(purchasing, scope, latest.attempt) : { status: 'NEEDS_BROWSER' };
  }
  const gateway = deps.gateways[scope.environment];
  if (gateway.cardEntry.kind !== 'browser')
    throw new AppError('INVALID_INPUT', 'This checkout takes the card in its own form.');
  const prepared = await prepare(deps, scope, request);
  const needsCard = prepared.plan.charged || prepared.plan.transaction.type !== 'ONETIME';
  if (needsCard && !options.sessions) return { status: 'NEEDS_BROWSER' };
  const plan: PurchasePlan = { ...prepared.plan, session: needsCard };
  const recorded = await recordPurchaseAttempt(deps, attemptOf(deps, scope, prepared, plan, latest.key));
  // Twenty clicks at once: one recorded the attempt, the others find its session.
  if (!recorded.fresh) return startBrowserPayment(purchasing, scope, request, options);
  if (!needsCard)
    return resultOf(
      deps,
      scope,
      await deps.protocol.settle(recorded.attempt, { status: 'SUCCEEDED', reference: '', feeMinor: 0 }, booking),
    );
  return session(purchasing, scope, recorded.attempt);
}

/** The processor's browser session of an open attempt, started (or, the same attempt again, found) under its id. */
async function session(
  { deps, booking }: Purchasing,
  scope: Scope,
  attempt: AttemptOf<'PURCHASE'>,
): Promise<BrowserPaymentStart> {
  const { plan } = attempt;
  const started = await deps.gateways[scope.environment].startSession({
    attemptId: attempt.id,
    amountMinor: attempt.amountMinor,
    currency: attempt.currency,
    saveForLater: plan.transaction.type !== 'ONETIME',
    scope,
    customer: {
      email: plan.transaction.email,
      name: [plan.customer.firstName, plan.customer.lastName].filter(Boolean).join(' ') || null,
      reference: null,
    },
    description: plan.transaction.productName,
  });
  if (started.status === 'DECLINED')
    return resultOf(deps, scope, await deps.protocol.settle(attempt, started, booking), started);
  if (attempt.gatewayReference !== started.reference) await deps.protocol.noteReference(attempt, started.reference);
  return { status: 'SESSION', attemptKey: attempt.key, clientSecret: started.clientSecret, mode: started.mode };
}
