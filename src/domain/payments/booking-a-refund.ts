import type { Booking } from './attempt-outcomes.ts';
import type { AttemptOf, Repositories } from '../ports.ts';
import type { ReversalService } from './reversals.ts';

/** Books a refund the gateway made, through the reversal module, under the transaction's row lock. */
async function bookRefund(
  deps: { reversals: ReversalService },
  repos: Repositories,
  attempt: AttemptOf<'REFUND'>,
  reference: string,
): Promise<void> {
  const { plan } = attempt;
  // The row first, then the invoice counter (inside the entry insert): billing takes them in this order too.
  const transaction = await repos.transactions.lock(attempt.scope, plan.transaction.id);
  if (!transaction) throw new Error(`refund ${attempt.key}: transaction ${plan.transaction.id} is missing`);
  const payment = (await repos.entries.listForTransaction(transaction.id)).find((e) => e.id === plan.paymentId);
  if (!payment) throw new Error(`refund ${attempt.key}: payment ${plan.paymentId} is missing`);
  await deps.reversals.reverse(repos, {
    scope: attempt.scope,
    transaction,
    payment,
    kind: 'REFUND',
    amountMinor: attempt.amountMinor,
    externalId: reference,
    at: new Date(plan.entry.createdAt),
    reason: plan.reason,
    ids: plan.entry,
  });
}

/** How a settled refund is written: by the charge protocol when the gateway answers, and by the reconciler. */
export function refundBooking(deps: { reversals: ReversalService }): Booking<'REFUND'> {
  return {
    // The processor finds a refund among its payment's refunds: the reconciler asks with the payment.
    lookupHint: (attempt) => attempt.plan.chargeReference,
    succeeded: (repos, attempt, paid) => bookRefund(deps, repos, attempt, paid.reference),
  };
}
