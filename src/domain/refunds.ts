import type { Booking, ChargeProtocol } from './charge-protocol.ts';
import type { EmailEvent } from './customer-email-model.ts';
import type { EmailRecorder } from './customer-emails.ts';
import { latestUnderKey, pendingAttempt, wasVoided } from './charge-attempts.ts';
import type { Clock } from './clock.ts';
import { AppError, invalidState, notFound } from './errors.ts';
import { randomToken } from './ids.ts';
import { latestUnreversedPayment, reversalEntry, type NewEntry } from './ledger.ts';
import type { EntryType, Scope, Transaction } from './model.ts';
import type { ChargeAttempt, Store } from './ports.ts';
import { requireUnchanged, type SeenLedger } from './seen-ledger.ts';

/**
 * Refunds the latest payment not yet refunded, through the charge protocol: the refund is recorded
 * under the row lock and committed, the gateway is asked outside any database transaction, and the
 * refund entry and status are written when it answers. One open refund per transaction at a time,
 * and the unique reverses_entry_id, make twenty simultaneous refunds produce exactly one.
 */
export interface RefundDeps {
  store: Store;
  clock: Clock;
  protocol: ChargeProtocol;
  /** Queues the customer's refund e-mail in the booking's database transaction. */
  emails?: EmailRecorder | undefined;
}

export type RefundOutcome =
  | { status: 'REFUNDED'; transaction: Transaction; refund: NewEntry; payment: { amountTotalMinor: number } }
  /** The gateway's answer is unknown: the refund entry appears once the gateway confirms it. */
  | { status: 'PENDING'; transaction: Transaction };

const REFUND_TYPE: Record<Transaction['type'], EntryType> = {
  ONETIME: 'ONETIME_PAYMENT_REFUND',
  SUBSCRIPTION: 'SUBSCRIPTION_REFUND',
  // The spec's entry types have no vaulted refund; a vaulted charge is refunded like a one-time payment.
  VAULTED: 'ONETIME_PAYMENT_REFUND',
};

/** What booking a refund writes, recorded with its attempt. */
interface RefundPlan {
  transaction: Transaction;
  refund: NewEntry;
  chargeReference: string | null;
}

export function refundService(deps: RefundDeps) {
  const booking: Booking = {
    // The processor finds a refund among its payment's refunds: the reconciler asks with the payment.
    lookupHint: (attempt) => (JSON.parse(attempt.plan!) as RefundPlan).chargeReference,
    async succeeded(repos, attempt, paid) {
      const plan = JSON.parse(attempt.plan!) as RefundPlan;
      const { transaction } = plan;
      // The row first, then the invoice counter (inside the entry insert): billing takes them in this order too.
      await repos.transactions.lock(attempt.scope, transaction.id);
      await repos.entries.insert({ ...plan.refund, externalId: paid.reference });
      // A vaulted method stays usable after one of its charges is refunded.
      const patch: Partial<Transaction> = transaction.type === 'VAULTED' ? {} : { status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
      await repos.transactions.update(attempt.scope, transaction.id, patch, { flag: 'CHANGED_STATUS_REFUNDED', at: plan.refund.createdAt });
      await deps.emails?.record(repos, [refundEmail(attempt.scope, transaction.id, plan.refund.id)]);
    },
  };

  async function outcomeOf(attempt: ChargeAttempt): Promise<RefundOutcome> {
    const plan = JSON.parse(attempt.plan!) as RefundPlan;
    if (attempt.status === 'PENDING' || attempt.status === 'UNKNOWN') return { status: 'PENDING', transaction: plan.transaction };
    if (attempt.status !== 'SUCCEEDED') {
      throw new AppError('SERVICE_UNAVAILABLE', `The payment provider refused the refund (${attempt.failureCode ?? attempt.status}); nothing was refunded.`);
    }
    const patch: Partial<Transaction> = plan.transaction.type === 'VAULTED' ? {} : { status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
    return {
      status: 'REFUNDED',
      transaction: { ...plan.transaction, ...patch, changeFlag: 'CHANGED_STATUS_REFUNDED' },
      refund: { ...plan.refund, externalId: attempt.gatewayReference },
      payment: { amountTotalMinor: plan.refund.amountTotalMinor },
    };
  }

  /** Asks the gateway for an open refund attempt (`again`: a retry, under the same id) and settles it. */
  async function ask(attempt: ChargeAttempt, again = false): Promise<RefundOutcome> {
    const plan = JSON.parse(attempt.plan!) as RefundPlan;
    const outcome = await (again ? deps.protocol.moveAgain : deps.protocol.move)(attempt, { refundOf: plan.chargeReference });
    return outcomeOf(await deps.protocol.settle(attempt, outcome, booking));
  }

  /** The same Idempotency-Key again: the first refund's outcome, asking the gateway again while it is open. */
  async function retry(attempt: ChargeAttempt): Promise<RefundOutcome> {
    if (attempt.status !== 'PENDING' && attempt.status !== 'UNKNOWN') return outcomeOf(attempt);
    const result = await ask(attempt, true);
    if (result.status === 'PENDING') {
      throw new AppError('PAYMENT_PENDING', 'This refund is still being confirmed by the payment provider; retry later with the same Idempotency-Key.', {
        retryAfterSeconds: 5,
      });
    }
    return result;
  }

  return {
    /** How a settled refund is written, for the reconciler. */
    booking,

    /**
     * `key`: the client's Idempotency-Key; a retry under it is the same refund. `seen`: the ledger as
     * the caller showed it; refused if it changed since (a form sent twice).
     */
    async refund(scope: Scope, id: string, options: { key?: string | undefined; seen?: SeenLedger | undefined } = {}): Promise<RefundOutcome> {
      const firstKey = `refund:${scope.vendorId}:${scope.environment}:${id}:${options.key ?? randomToken(16)}`;
      // The same key again is the same refund; after a void (nothing was refunded) it is a new try.
      const latest = options.key ? await latestUnderKey(deps.protocol.findByKey, firstKey, wasVoided) : { key: firstKey };
      if (latest.attempt) return retry(latest.attempt);

      const recorded = await deps.store.transaction(async (repos) => {
        const transaction = await repos.transactions.lock(scope, id);
        if (!transaction) throw notFound(`Transaction ${id}`);
        await requireUnchanged(repos, id, options.seen);
        if (await repos.chargeAttempts.findOpenFor(id, 'REFUND')) {
          throw new AppError('PAYMENT_PENDING', `A refund of transaction ${id} is being confirmed by the payment provider; retry later.`, {
            retryAfterSeconds: 5,
          });
        }
        if (transaction.status === 'TRANSACTION_STATUS_PENDING')
          throw invalidState(`Transaction ${id} is ${transaction.status}: there is no payment to refund yet.`);
        if (transaction.status === 'TRANSACTION_STATUS_REFUNDED') throw invalidState(`Transaction ${id} is already refunded (status ${transaction.status}).`);
        const entries = await repos.entries.listForTransaction(id);
        const payment = latestUnreversedPayment(entries);
        if (!payment) throw invalidState(`Transaction ${id} (status ${transaction.status}) has no payment left to refund.`);
        if (payment.amountTotalMinor <= 0) throw invalidState(`The latest payment of transaction ${id} was of nothing; there is nothing to refund.`);
        const now = deps.clock.now(scope);
        const refund = reversalEntry(payment, {
          type: REFUND_TYPE[transaction.type],
          vendorId: scope.vendorId,
          environment: scope.environment,
          externalId: null,
          at: now,
        });
        const plan: RefundPlan = { transaction, refund, chargeReference: payment.externalId };
        const attempt = pendingAttempt({
          scope,
          kind: 'REFUND',
          key: latest.key,
          transactionId: id,
          amountMinor: payment.amountTotalMinor,
          currency: payment.currency,
          now: deps.clock.now(),
          plan,
        });
        // Committed with this transaction, before the gateway is asked.
        return repos.chargeAttempts.record(attempt);
      });
      if (!recorded.fresh) return retry(recorded.attempt);
      return ask(recorded.attempt);
    },
  };
}

export type RefundService = ReturnType<typeof refundService>;

/** The customer's e-mail about a refund: one per refund entry, however the refund was made. */
export const refundEmail = (scope: Scope, transactionId: string, entryId: string): EmailEvent => ({
  kind: 'REFUNDED',
  scope,
  key: `REFUNDED:${entryId}`,
  facts: { transactionId, entryId },
});
