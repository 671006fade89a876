import { AppError } from '../errors.ts';
import type { Scope } from '../model.ts';
import { latestUnderKey, wasVoided, type PurchasePlan } from '../payments/index.ts';
import type { AttemptOf, ChargeAttempt } from '../ports.ts';
import type { PurchaseDeps, PurchaseRequest } from './purchase-request.ts';

const FORM_USED_ELSEWHERE =
  'This form was already used for another payment (another product, price or seller); nothing was charged. Reload the page and pay again.';

/** The id a checkout form was for: its customized product's, else its product's. */
const offerIdOf = (plan: PurchasePlan) => plan.transaction.customizedProductId ?? plan.transaction.productId;

/** Whether an attempt is a purchase of this vendor and environment, made on the form of `productId` (a product's or a customized product's id). */
export const isFormOf = (scope: Scope, attempt: ChargeAttempt, productId: string): attempt is AttemptOf<'PURCHASE'> =>
  attempt.kind === 'PURCHASE' &&
  attempt.scope.vendorId === scope.vendorId &&
  attempt.scope.environment === scope.environment &&
  offerIdOf(attempt.plan) === productId;

/**
 * A form's token is bound to what it was first used for (docs/decisions.md §14, "Form tokens"):
 * its attempts' vendor, environment and product, and, while the latest is open or paid, the total and
 * currency it was for. Resumed from another form, it would show another payment's receipt (and tell an
 * embedding page "paid") as this product's. After a decline the customer may change the details, so a
 * declined attempt binds the product only.
 */
export function requireBound(
  scope: Scope,
  latest: { attempt?: ChargeAttempt; passed?: ChargeAttempt },
  request: Pick<PurchaseRequest, 'productId' | 'expectedTotal'>,
) {
  const { attempt, passed } = latest;
  const expected = request.expectedTotal;
  const sameForm =
    (!passed || isFormOf(scope, passed, request.productId)) &&
    (!attempt ||
      (isFormOf(scope, attempt, request.productId) &&
        (!expected ||
          (expected.currency.toUpperCase() === attempt.plan.quote.currency &&
            expected.totalMinor === attempt.plan.quote.totalMinor))));
  if (!sameForm) throw new AppError('IDEMPOTENCY_CONFLICT', FORM_USED_ELSEWHERE);
}

/**
 * The attempt a form's key leads to now: the first one, or after a decline (the customer may try
 * another card on the same form) or a void the one made after it; see `latestUnderKey`.
 */
export const latestAttempt = (deps: Pick<PurchaseDeps, 'protocol'>, formKey: string) =>
  latestUnderKey(deps.protocol.findByKey, formKey, (attempt) => attempt.status === 'DECLINED' || wasVoided(attempt));

/** Whether an attempt is a browser payment, in a session of the processor's. */
export const isSession = (attempt: ChargeAttempt): attempt is AttemptOf<'PURCHASE'> =>
  attempt.kind === 'PURCHASE' && attempt.plan.session === true;
