import { AppError } from '../errors.ts';
import type { Scope } from '../model.ts';
import { declineMessage, type DeclineCode, type Outcome } from '../payments/index.ts';
import type { AttemptOf, ChargeAttempt } from '../ports.ts';
import { isFormOf, latestAttempt } from './form-keys.ts';
import type { PurchaseDeps, PurchaseResult, Purchasing } from './purchase-request.ts';

/** What the customer hears of an attempt: paid, declined, or still being confirmed. */
export async function resultOf(
  deps: PurchaseDeps,
  scope: Scope,
  attempt: AttemptOf<'PURCHASE'>,
  outcome?: Outcome,
): Promise<PurchaseResult> {
  const { plan } = attempt;
  if (attempt.status === 'SUCCEEDED') {
    const transaction = await deps.store.transactions.find(scope, plan.transaction.id);
    if (!transaction)
      throw new Error(`purchase ${attempt.key} is settled but its transaction ${plan.transaction.id} is missing`);
    // A seat change's key is the one carried over, not the one planned (docs/decisions.md §39).
    const licence = plan.migration?.keepsLicence
      ? ((await deps.store.licences.keyOf(scope, transaction.id)) ?? null)
      : plan.licence;
    return { status: 'PAID', transaction, quote: plan.quote, licence };
  }
  if (attempt.status === 'PENDING' || attempt.status === 'UNKNOWN') {
    return {
      status: 'PENDING',
      attemptKey: attempt.key,
      message: 'The payment is being confirmed with the card network. Do not pay again.',
    };
  }
  const code = (attempt.failureCode ?? 'card_declined') as DeclineCode;
  // The processor's own words for a decline just heard; else ours for the code recorded.
  if (outcome?.status === 'DECLINED') return { status: 'DECLINED', code, message: outcome.message };
  const message =
    attempt.status === 'DECLINED' ? declineMessage(code) : 'The payment did not go through; nothing was charged.';
  return { status: 'DECLINED', code, message };
}

/** A retry of the same key (the same form sent again): the first attempt's outcome, asking the gateway again if it is still open. */
export async function resume(
  { deps, booking }: Purchasing,
  scope: Scope,
  attempt: ChargeAttempt,
): Promise<PurchaseResult> {
  if (
    attempt.kind !== 'PURCHASE' ||
    attempt.scope.vendorId !== scope.vendorId ||
    attempt.scope.environment !== scope.environment
  ) {
    throw new AppError('IDEMPOTENCY_CONFLICT', 'This form was already used for another payment; reload the page.');
  }
  if (attempt.status !== 'PENDING' && attempt.status !== 'UNKNOWN') return resultOf(deps, scope, attempt);
  const outcome = await askAgain(deps, attempt);
  return resultOf(deps, scope, await deps.protocol.settle(attempt, outcome, booking), outcome);
}

/** An open attempt's outcome, asked of the processor again; one that charges nothing has nothing to ask. */
async function askAgain(deps: PurchaseDeps, attempt: AttemptOf<'PURCHASE'>): Promise<Outcome> {
  const { plan } = attempt;
  if (plan.session) return await deps.protocol.move(attempt, { session: true });
  if (plan.charged) return await deps.protocol.moveAgain(attempt, { token: plan.token });
  return { status: 'SUCCEEDED', reference: '', feeMinor: 0 };
}

/**
 * The purchase recorded under `key` (a checkout form's token), as the customer should see it now;
 * with `productId`, only if it was made on that product's form: undefined if there is none.
 */
export async function purchaseStatus(
  purchasing: Purchasing,
  scope: Scope,
  key: string,
  productId?: string,
): Promise<PurchaseResult | undefined> {
  const latest = await latestAttempt(purchasing.deps, key);
  const attempt = latest.attempt ?? latest.passed;
  if (!attempt || (productId !== undefined && !isFormOf(scope, attempt, productId))) return undefined;
  return resume(purchasing, scope, attempt);
}
