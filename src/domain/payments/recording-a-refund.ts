import type { RefundPlan } from './attempt-plans.ts';
import { pendingAttempt } from './charge-attempts.ts';
import type { Clock } from '../clock.ts';
import { AppError, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Scope } from '../model.ts';
import { MAX_REASON_LENGTH, planRefund, type RefundAsked } from './planning-a-refund.ts';
import type { Store } from '../ports.ts';
import { requireUnchanged, type SeenLedger } from './seen-ledger.ts';

/** Checks the refund against the transaction as it is now, locked, and records its attempt (committed before the gateway is asked). */
export async function recordRefund(
  deps: { store: Store; clock: Clock },
  scope: Scope,
  id: string,
  key: string,
  request: RefundAsked,
  seen: SeenLedger | undefined,
) {
  return deps.store.transaction(async (repos) => {
    const transaction = await repos.transactions.lock(scope, id);
    if (!transaction) throw notFound(`Transaction ${id}`);
    await requireUnchanged(repos, id, seen);
    if (await repos.chargeAttempts.findOpenFor(id, 'REFUND')) {
      throw new AppError(
        'PAYMENT_PENDING',
        `A refund of transaction ${id} is being confirmed by the payment provider; retry later.`,
        {
          retryAfterSeconds: 5,
        },
      );
    }
    if (transaction.status === 'TRANSACTION_STATUS_PENDING')
      throw invalidState(`Transaction ${id} is ${transaction.status}: there is no payment to refund yet.`);
    const { state, amountMinor } = planRefund(await repos.entries.listForTransaction(id), request, transaction);
    const now = deps.clock.now(scope);
    const plan: RefundPlan = {
      transaction,
      paymentId: state.payment.id,
      chargeReference: state.payment.externalId,
      entry: {
        id: newId('entry', now.getTime()),
        hashId: newId('hash', now.getTime()),
        createdAt: now.toISOString(),
      },
      reason: request.reason?.trim().slice(0, MAX_REASON_LENGTH) || null,
    };
    const attempt = pendingAttempt({
      scope,
      kind: 'REFUND',
      key,
      transactionId: id,
      amountMinor,
      currency: state.payment.currency,
      now: deps.clock.now(),
      plan,
    });
    return repos.chargeAttempts.record(attempt);
  });
}
