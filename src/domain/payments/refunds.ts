import type { RefundPlan } from './attempt-plans.ts';
import type { Booking, ChargeProtocol } from './charge-protocol.ts';
import { latestUnderKey, pendingAttempt, wasVoided } from './charge-attempts.ts';
import type { Clock } from '../clock.ts';
import { AppError, invalidInput, invalidState, notFound } from '../errors.ts';
import { newId, randomToken } from '../ids.ts';
import { isPayment } from './ledger.ts';
import type { LedgerEntry, Scope, Transaction } from '../model.ts';
import { formatMinor, normalizeCurrency, toMinor } from '../money/index.ts';
import type { AttemptOf, ChargeAttempt, Repositories, Store } from '../ports.ts';
import { latestRefundable, reversalState, type ReversalService, type ReversalState } from './reversals.ts';
import { requireUnchanged, type SeenLedger } from './seen-ledger.ts';

/**
 * Refunds asked through opentill (the API, the panel, the admin tool), all or part of a payment,
 * through the charge protocol: the refund is recorded under the row lock and committed, the gateway is
 * asked outside any database transaction, and the reversal module books it when the gateway answers.
 * One open refund per transaction at a time, and the store's check of each payment's reversals, make
 * twenty simultaneous refunds of everything produce exactly one.
 */
export interface RefundDeps {
  store: Store;
  clock: Clock;
  protocol: ChargeProtocol;
  reversals: ReversalService;
}

export type RefundOutcome =
  /** `entry` is the refund booked; `remainingMinor` what is left to refund of its payment. */
  | { status: 'REFUNDED'; transaction: Transaction; entry: LedgerEntry; remainingMinor: number }
  /** The gateway's answer is unknown: the refund entry appears once the gateway confirms it. */
  | { status: 'PENDING'; transaction: Transaction };

/** What a client asks: all that is left of the latest payment (nothing given), or an amount of it or of another payment. */
export interface RefundAsked {
  /** Gross, in the transaction's currency (a decimal number, as the API takes amounts). */
  amount?: number | string | undefined;
  /** When given, must be the payment's currency. */
  currency?: string | undefined;
  /** The payment to refund (a ledger entry id); the latest with something left by default. */
  entryId?: string | undefined;
  /** Why, kept with the refund and shown in the panel and the admin tool. */
  reason?: string | undefined;
}

/** At most this many characters of a reason are kept. */
export const MAX_REASON_LENGTH = 500;

/**
 * What a refund with nothing named would refund now: the latest payment with something left, unless
 * the transaction has no payment yet or is refunded (the original API's call: a refunded
 * subscription's earlier periods stay paid). The API, the panel and the admin tool all ask this.
 */
export function refundableNow(transaction: Transaction, entries: readonly LedgerEntry[]): ReversalState | undefined {
  if (transaction.status === 'TRANSACTION_STATUS_PENDING' || transaction.status === 'TRANSACTION_STATUS_REFUNDED')
    return undefined;
  return latestRefundable(entries);
}

/**
 * The payment and amount a request refunds, checked against the ledger as it is now (under the row lock).
 * Without a payment named, the latest with something left, as long as the transaction is not refunded
 * (the original API's call: a refunded subscription's earlier periods stay paid). Refused: a payment that
 * is not one or has nothing left, an amount of zero, more than is left, or in another currency.
 */
export function planRefund(
  entries: readonly LedgerEntry[],
  request: RefundAsked,
  transaction: Transaction,
): { state: ReversalState; amountMinor: number } {
  const { id, status } = transaction;
  const payment = request.entryId === undefined ? undefined : entries.find((e) => e.id === request.entryId);
  if (request.entryId !== undefined && (!payment || !isPayment(payment)))
    throw notFound(`Payment ${request.entryId} of transaction ${id}`);
  const state = payment ? reversalState(entries, payment) : refundableNow(transaction, entries);
  if (!state || state.remainingMinor <= 0) {
    if (!payment && status === 'TRANSACTION_STATUS_REFUNDED')
      throw invalidState(`Transaction ${id} is already refunded (status ${status}).`);
    throw invalidState(`Transaction ${id} (status ${status}) has no payment left to refund.`);
  }
  const currency = state.payment.currency;
  if (request.currency !== undefined && normalizeCurrency(request.currency) !== currency) {
    throw invalidInput(`The payment is in ${currency}; a refund of it is in ${currency} too, not ${request.currency}.`);
  }
  const amountMinor = request.amount === undefined ? state.remainingMinor : toMinor(request.amount, currency);
  if (amountMinor <= 0) throw invalidInput('A refund must be of more than zero.');
  if (amountMinor > state.remainingMinor) {
    throw invalidInput(
      `${request.amount} ${currency} is more than is left to refund of this payment: at most ${formatMinor(state.remainingMinor, currency)} ${currency}.`,
    );
  }
  return { state, amountMinor };
}

export function refundService(deps: RefundDeps) {
  /** Books a refund the gateway made, through the reversal module, under the transaction's row lock. */
  async function book(repos: Repositories, attempt: AttemptOf<'REFUND'>, reference: string): Promise<void> {
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

  const booking: Booking<'REFUND'> = {
    // The processor finds a refund among its payment's refunds: the reconciler asks with the payment.
    lookupHint: (attempt) => attempt.plan.chargeReference,
    succeeded: (repos, attempt, paid) => book(repos, attempt, paid.reference),
  };

  /** `said`: what the processor said when it refused, if this call heard it. */
  async function outcomeOf(attempt: AttemptOf<'REFUND'>, said?: string): Promise<RefundOutcome> {
    const { plan } = attempt;
    if (attempt.status === 'PENDING' || attempt.status === 'UNKNOWN')
      return { status: 'PENDING', transaction: plan.transaction };
    if (attempt.status !== 'SUCCEEDED') {
      // A refusal, not an outage: asking again gets the same answer (a disputed payment, one refunded elsewhere).
      throw invalidState(
        `The payment provider refused the refund${said ? `: ${said}` : ` (${attempt.failureCode ?? attempt.status})`}. Nothing was refunded.`,
      );
    }
    const transaction = await deps.store.transactions.find(attempt.scope, plan.transaction.id);
    const entries = await deps.store.entries.listForTransaction(plan.transaction.id);
    const entry = entries.find((e) => e.id === plan.entry.id);
    const payment = entries.find((e) => e.id === plan.paymentId);
    if (!transaction || !entry || !payment)
      throw new Error(`refund ${attempt.key} is settled but its entry ${plan.entry.id} is missing`);
    return { status: 'REFUNDED', transaction, entry, remainingMinor: reversalState(entries, payment).remainingMinor };
  }

  /** Asks the gateway for an open refund attempt (`again`: a retry, under the same id) and settles it. */
  async function ask(attempt: AttemptOf<'REFUND'>, again = false): Promise<RefundOutcome> {
    const outcome = await (again ? deps.protocol.moveAgain : deps.protocol.move)(attempt, {
      refundOf: attempt.plan.chargeReference,
    });
    return outcomeOf(
      await deps.protocol.settle(attempt, outcome, booking),
      outcome.status === 'DECLINED' ? outcome.message : undefined,
    );
  }

  /** The same Idempotency-Key again: the first refund's outcome, asking the gateway again while it is open. */
  async function retry(attempt: ChargeAttempt): Promise<RefundOutcome> {
    if (attempt.kind !== 'REFUND') throw new Error(`attempt ${attempt.key} is a ${attempt.kind}, not a refund`);
    if (attempt.status !== 'PENDING' && attempt.status !== 'UNKNOWN') return outcomeOf(attempt);
    const result = await ask(attempt, true);
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

  /** Checks the refund against the transaction as it is now, locked, and records its attempt (committed before the gateway is asked). */
  async function record(scope: Scope, id: string, key: string, request: RefundAsked, seen: SeenLedger | undefined) {
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

  return {
    /** How a settled refund is written, for the reconciler. */
    booking,

    /**
     * `key`: the client's Idempotency-Key; a retry under it is the same refund. `seen`: the ledger as
     * the caller showed it; refused if it changed since (a form sent twice).
     */
    async refund(
      scope: Scope,
      id: string,
      options: { key?: string | undefined; seen?: SeenLedger | undefined; request?: RefundAsked } = {},
    ): Promise<RefundOutcome> {
      const firstKey = `refund:${scope.vendorId}:${scope.environment}:${id}:${options.key ?? randomToken(16)}`;
      // The same key again is the same refund; after a void (nothing was refunded) it is a new try.
      const latest = options.key
        ? await latestUnderKey(deps.protocol.findByKey, firstKey, wasVoided)
        : { key: firstKey };
      if (latest.attempt) return retry(latest.attempt);
      const recorded = await record(scope, id, latest.key, options.request ?? {}, options.seen);
      if (!recorded.fresh) return retry(recorded.attempt);
      return ask(recorded.attempt);
    },
  };
}

export type RefundService = ReturnType<typeof refundService>;
