import { AppError } from '../errors.ts';
import type { Scope } from '../model.ts';
import type { Outcome, PurchasePlan } from '../payments/index.ts';
import { requireCardExpiry } from '../validation.ts';
import { recordPurchaseAttempt } from './coupon-redemptions.ts';
import { latestAttempt, requireBound } from './form-keys.ts';
import { resultOf, resume } from './purchase-outcomes.ts';
import { attemptOf, prepare } from './purchase-plan.ts';
import type { PurchaseRequest, PurchaseResult, Purchasing } from './purchase-request.ts';

/**
 * A purchase whose card was typed into opentill's form (the sandbox's virtual cards): tokenize,
 * record, charge, settle.
 */
export async function purchaseWithCard(
  purchasing: Purchasing,
  scope: Scope,
  request: PurchaseRequest,
): Promise<PurchaseResult> {
  const { deps, booking } = purchasing;
  // The same form again (a double click, a reload, a retry after "being confirmed"): its attempt.
  // After a decline the form may be sent again with another card: that is a new attempt.
  const latest = request.attemptKey ? await latestAttempt(deps, request.attemptKey) : undefined;
  if (latest) requireBound(scope, latest, request);
  if (latest?.attempt) return resume(purchasing, scope, latest.attempt);
  const gateway = deps.gateways[scope.environment];
  if (gateway.cardEntry.kind === 'browser')
    throw new AppError('INVALID_INPUT', 'Card details are taken by the payment processor in the browser here.');
  if (!request.card) throw new AppError('INVALID_INPUT', 'Enter the card details.');
  const prepared = await prepare(deps, scope, request);
  requireCardExpiry(request.card);
  const tokenized = await gateway.tokenize(request.card, deps.clock.now(scope));
  if (tokenized.status !== 'OK') return { status: 'DECLINED', code: tokenized.code, message: tokenized.message };
  const plan: PurchasePlan = { ...prepared.plan, token: tokenized.card.token, card: tokenized.card };
  // Recorded before the gateway is asked, under the client's key: a retry finds this attempt.
  const recorded = await recordPurchaseAttempt(deps, attemptOf(deps, scope, prepared, plan, latest?.key));
  if (!recorded.fresh) return resume(purchasing, scope, recorded.attempt);
  // Nothing due now (a trial, a zero price, a migration): no money moves, the attempt books at once.
  const outcome: Outcome = plan.charged
    ? await deps.protocol.move(recorded.attempt, { token: plan.token })
    : { status: 'SUCCEEDED', reference: '', feeMinor: 0 };
  return resultOf(deps, scope, await deps.protocol.settle(recorded.attempt, outcome, booking), outcome);
}
