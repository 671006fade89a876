import type { Booking } from './attempt-outcomes.ts';
import type { ChargeProtocol } from './charge-protocol.ts';
import { AppError, invalidState } from '../errors.ts';
import type { LedgerEntry, Transaction } from '../model.ts';
import type { AttemptOf, ChargeAttempt, Store } from '../ports.ts';
import { reversalState } from './reversal-state.ts';

export type RefundOutcome =
  /** `entry` is the refund booked; `remainingMinor` what is left to refund of its payment. */
  | { status: 'REFUNDED'; transaction: Transaction; entry: LedgerEntry; remainingMinor: number }
  /** The gateway's answer is unknown: the refund entry appears once the gateway confirms it. */
  | { status: 'PENDING'; transaction: Transaction };

/** What asking the gateway for a recorded refund needs: the protocol, the refund's booking, the store to read the answer from. */
export interface RefundAsking {
  store: Store;
  protocol: ChargeProtocol;
  booking: Booking<'REFUND'>;
}

/** `said`: what the processor said when it refused, if this call heard it. */
async function outcomeOf(store: Store, attempt: AttemptOf<'REFUND'>, said?: string): Promise<RefundOutcome> {
  const { plan } = attempt;
  if (attempt.status === 'PENDING' || attempt.status === 'UNKNOWN')
    return { status: 'PENDING', transaction: plan.transaction };
  if (attempt.status !== 'SUCCEEDED') {
    // A refusal, not an outage: asking again gets the same answer (a disputed payment, one refunded elsewhere).
    throw invalidState(
      `The payment provider refused the refund${said ? `: ${said}` : ` (${attempt.failureCode ?? attempt.status})`}. Nothing was refunded.`,
    );
  }
  const transaction = await store.transactions.find(attempt.scope, plan.transaction.id);
  const entries = await store.entries.listForTransaction(plan.transaction.id);
  const entry = entries.find((e) => e.id === plan.entry.id);
  const payment = entries.find((e) => e.id === plan.paymentId);
  if (!transaction || !entry || !payment)
    throw new Error(`refund ${attempt.key} is settled but its entry ${plan.entry.id} is missing`);
  return { status: 'REFUNDED', transaction, entry, remainingMinor: reversalState(entries, payment).remainingMinor };
}

/** Asks the gateway for an open refund attempt (`again`: a retry, under the same id) and settles it. */
export async function askForRefund(
  asking: RefundAsking,
  attempt: AttemptOf<'REFUND'>,
  again = false,
): Promise<RefundOutcome> {
  const outcome = await (again ? asking.protocol.moveAgain : asking.protocol.move)(attempt, {
    refundOf: attempt.plan.chargeReference,
  });
  return outcomeOf(
    asking.store,
    await asking.protocol.settle(attempt, outcome, asking.booking),
    outcome.status === 'DECLINED' ? outcome.message : undefined,
  );
}

/** The same Idempotency-Key again: the first refund's outcome, asking the gateway again while it is open. */
export async function retryRefund(asking: RefundAsking, attempt: ChargeAttempt): Promise<RefundOutcome> {
  if (attempt.kind !== 'REFUND') throw new Error(`attempt ${attempt.key} is a ${attempt.kind}, not a refund`);
  if (attempt.status !== 'PENDING' && attempt.status !== 'UNKNOWN') return outcomeOf(asking.store, attempt);
  const result = await askForRefund(asking, attempt, true);
  if (result.status === 'PENDING') {
    throw new AppError(
      'PAYMENT_PENDING',
      'This refund is still being confirmed by the payment provider; retry later with the same Idempotency-Key.',
      {
        retryAfterSeconds: 5,
      },
    );
  }
  return result;
}
