import { AppError, invalidState } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import type { Outcome, PurchasePlan } from '../payments/index.ts';
import { resultOf, resume } from './purchase-outcomes.ts';
import { attemptOf, prepare } from './purchase-plan.ts';
import type { PurchaseResult, Purchasing } from './purchase-request.ts';

/** A plan a customer may switch to in the portal, and whether the switch is an upgrade (now) or a downgrade (at the period's end). */
export interface PlanSwitch {
  oldId: string;
  productId: string;
  email: string;
  atPeriodEnd: boolean;
  /** A change of seats (docs/decisions.md §39): the new subscription's quantity; absent, the old one's. */
  quantity?: number | undefined;
}

/** A period's nominal length in days, to compare prices of plans billed at different intervals. */
const DAYS: Record<Transaction['chargeFrequency'], number> = {
  DAILY: 1,
  WEEKLY: 7,
  MONTHLY: 30,
  HALF_YEARLY: 182,
  YEARLY: 365,
  UNKNOWN: 30,
};

/**
 * Whether `next` costs more per day than `old` (USD net, as proration compares): an upgrade starts now,
 * anything else is a downgrade that starts when the paid period ends (docs/decisions.md §34).
 */
export function isUpgrade(
  old: Pick<Transaction, 'netUsdMinor' | 'chargeFrequency'>,
  next: { netUsdMinor: number; chargeFrequency: Transaction['chargeFrequency'] },
): boolean {
  return (
    BigInt(next.netUsdMinor) * BigInt(DAYS[old.chargeFrequency]) >
    BigInt(old.netUsdMinor) * BigInt(DAYS[next.chargeFrequency])
  );
}

/**
 * A customer's switch of an active subscription to another plan, through the migration of a purchase
 * (docs/decisions.md §14): the new subscription in the old one's place, country, currency, business
 * details and card; nothing charged now, its first charge delayed by what is left of the old period
 * (an upgrade) or at the old period's end (a downgrade, the old one running out until then). Recorded
 * under a key of the old subscription and the plan: sent twice, it is made once.
 */
export async function switchPlan(purchasing: Purchasing, scope: Scope, request: PlanSwitch): Promise<PurchaseResult> {
  const { deps, booking } = purchasing;
  const old = await deps.store.transactions.find(scope, request.oldId);
  if (!old || old.type !== 'SUBSCRIPTION') throw invalidState('Only a subscription can change its plan.');
  // A subscription switches once (it is no longer active after): its id and the plan make the key.
  const key =
    request.quantity === undefined ? `switch:${old.id}:${request.productId}` : `seats:${old.id}:${request.quantity}`;
  const earlier = await deps.store.chargeAttempts.findByKey(key);
  if (earlier) return resume(purchasing, scope, earlier);
  const method = old.paymentMethodId ? await deps.store.paymentMethods.find(old.paymentMethodId) : undefined;
  if (!method) throw new AppError('INVALID_INPUT', 'This subscription has no saved card to go on with.');
  const [firstName, ...rest] = (old.buyerName ?? '').split(' ');
  const prepared = await prepare(deps, scope, {
    productId: request.productId,
    email: request.email,
    firstName: firstName || undefined,
    lastName: rest.join(' ') || undefined,
    country: old.country,
    region: old.region ?? undefined,
    zip: old.postalCode ?? undefined,
    currency: old.currency,
    vatId: old.buyerVatId ?? undefined,
    businessName: old.businessName ?? undefined,
    buyerAddress: old.buyerAddress ?? undefined,
    payload: old.payload,
    locale: old.locale ?? undefined,
    replaces: { transactionId: old.id, atPeriodEnd: request.atPeriodEnd },
    quantity: request.quantity ?? old.quantity,
  });
  const { id: _id, ...card } = method;
  const plan: PurchasePlan = { ...prepared.plan, token: method.token, card };
  const recorded = await deps.protocol.record(attemptOf(deps, scope, prepared, plan, key));
  if (!recorded.fresh) return resume(purchasing, scope, recorded.attempt);
  // A migration charges nothing now: the attempt books at once.
  const outcome: Outcome = { status: 'SUCCEEDED', reference: '', feeMinor: 0 };
  return resultOf(deps, scope, await deps.protocol.settle(recorded.attempt, outcome, booking), outcome);
}
