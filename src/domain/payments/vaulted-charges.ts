import type { Clock } from '../clock.ts';
import type { Booking, ChargeProtocol, Outcome } from './charge-protocol.ts';
import { AppError, invalidInput, invalidState, notFound } from '../errors.ts';
import type { ExchangeRates } from '../money/index.ts';
import type { UsSalesTaxTable } from '../tax/index.ts';
import { declineMessage, type DeclineCode, type PaymentGateway } from './gateway.ts';
import { latestUnderKey, pendingAttempt, wasVoided } from './charge-attempts.ts';
import { randomToken } from '../ids.ts';
import { paymentEntry } from './ledger.ts';
import type { Environment, Scope } from '../model.ts';
import type { VaultedPlan } from './attempt-plans.ts';
import type { AttemptOf, ChargeAttempt, Store } from '../ports.ts';
import { quotePrice, type PriceQuote } from '../tax/index.ts';
import { parsePriceList } from '../money/index.ts';

/**
 * Charges a stored payment method on the vendor's demand. The attempt is recorded before the
 * gateway is called, under a key derived from the request's Idempotency-Key, so a retried request
 * can never become a second charge. A decline is an answer (status FAILED), not an error.
 */
export interface VaultedChargeDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
  rates: ExchangeRates;
  protocol: ChargeProtocol;
  /** The ZIP-level US sales tax table, when one was imported. */
  usSalesTax?: UsSalesTaxTable | undefined;
}

export interface VaultedChargeResult {
  /** PENDING: the gateway's answer is unknown; a retry with the same Idempotency-Key learns the outcome. */
  status: 'SUCCESS' | 'FAILED' | 'PENDING';
  deactivation: boolean;
  quote: PriceQuote;
  message: string | null;
}

/** Whether an attempt recorded under a client's key is this charge: a key is one amount, in one currency. */
const sameCharge = (attempt: ChargeAttempt, quote: PriceQuote): attempt is AttemptOf<'VAULTED'> =>
  attempt.kind === 'VAULTED' && attempt.amountMinor === quote.totalMinor && attempt.currency === quote.currency;
const otherAmount = () =>
  new AppError(
    'IDEMPOTENCY_CONFLICT',
    'This Idempotency-Key was already used for a charge of another amount; use a new key for a new charge.',
  );

export function vaultedChargeService(deps: VaultedChargeDeps) {
  const booking: Booking<'VAULTED'> = {
    async succeeded(repos, attempt, paid) {
      const { plan } = attempt;
      // The vendor's time (a sandbox may run ahead), as a purchase's: the protocol's own time is real time.
      const at = deps.clock.now(attempt.scope);
      // The row first, then the invoice counter (inside the entry insert): billing takes them in this order too.
      const transaction = await repos.transactions.lock(attempt.scope, plan.transactionId);
      if (!transaction) throw new Error(`vaulted charge ${attempt.key}: transaction ${plan.transactionId} is missing`);
      await repos.entries.insert(
        paymentEntry({
          type: 'VAULTED_PAYMENT',
          transaction,
          quote: plan.quote,
          paid,
          provider: deps.gateways[attempt.scope.environment].provider,
          at,
          description: plan.description,
        }),
      );
      await repos.transactions.update(attempt.scope, plan.transactionId, { lastCharge: at.toISOString() });
    },
    async declined(repos, attempt, decline, at) {
      if (!decline.permanent) return;
      const { plan } = attempt;
      await repos.transactions.update(
        attempt.scope,
        plan.transactionId,
        { status: 'VAULTED_STATUS_INACTIVE' },
        { flag: 'CHANGED_STATUS_VAULTED_DEACTIVATION', at: at.toISOString() },
      );
    },
  };

  /** The answer for an attempt as it stands; PENDING while it is open. */
  function answer(attempt: AttemptOf<'VAULTED'>, quote: PriceQuote, outcome?: Outcome): VaultedChargeResult {
    if (attempt.status === 'SUCCEEDED') return { status: 'SUCCESS', deactivation: false, quote, message: null };
    if (attempt.status === 'PENDING' || attempt.status === 'UNKNOWN') {
      return {
        status: 'PENDING',
        deactivation: false,
        quote,
        message:
          'The payment provider has not confirmed the charge yet; retry with the same Idempotency-Key to learn the outcome.',
      };
    }
    if (outcome?.status === 'DECLINED')
      return { status: 'FAILED', deactivation: outcome.permanent, quote, message: outcome.message };
    const reason =
      attempt.status === 'DECLINED'
        ? declineMessage((attempt.failureCode ?? 'card_declined') as DeclineCode)
        : 'The charge did not go through.';
    return { status: 'FAILED', deactivation: false, quote, message: `This charge was declined before: ${reason}` };
  }

  /** Charges an open attempt's card (`again`: a retry, under the same id) and settles it; a payment the bank holds is not left open. */
  async function ask(
    attempt: AttemptOf<'VAULTED'>,
    again: boolean,
  ): Promise<{ settled: AttemptOf<'VAULTED'>; outcome: Outcome }> {
    const outcome = await (again ? deps.protocol.moveAgain : deps.protocol.move)(attempt, {
      token: attempt.plan.token,
    });
    const settled = await deps.protocol.settle(attempt, outcome, booking);
    await deps.protocol.releaseHeld(attempt, outcome);
    return { settled, outcome };
  }

  return {
    /** How a settled vaulted charge is written, for the reconciler. */
    booking,

    async charge(
      scope: Scope,
      id: string,
      input: { prices: unknown; chargeDescription?: string | undefined },
      idempotencyKey?: string,
    ): Promise<VaultedChargeResult> {
      const prices = parsePriceList(input.prices);
      // Real time, as every attempt's (docs/decisions.md §10a): the reconciler's grace and its day before UNRESOLVED are counted in it.
      const now = deps.clock.now();
      // The key comes from the client's Idempotency-Key; without one, each request is a charge of its own.
      const firstKey = `vaulted:${scope.vendorId}:${scope.environment}:${id}:${idempotencyKey ?? randomToken(16)}`;

      const prepared = await deps.store.transaction(async (repos) => {
        const transaction = await repos.transactions.lock(scope, id);
        if (!transaction) throw notFound(`Transaction ${id}`);
        if (transaction.type !== 'VAULTED')
          throw invalidState(`Transaction ${id} is ${transaction.type}, not a vaulted payment method.`);
        const quote = quotePrice({
          prices,
          currency: transaction.currency,
          country: transaction.country,
          region: transaction.region,
          zip: transaction.postalCode,
          usSalesTax: deps.usSalesTax,
          reverseCharge: transaction.reverseCharge,
          allowConversion: true,
          rates: deps.rates,
        });
        // The same key again is the same charge; after a void (nothing was charged) it is a new try.
        const latest = await latestUnderKey((key) => repos.chargeAttempts.findByKey(key), firstKey, wasVoided);
        if (latest.attempt) return { existing: latest.attempt, quote } as const;
        if (latest.passed && !sameCharge(latest.passed, quote)) throw otherAmount();
        if (transaction.status !== 'VAULTED_STATUS_ACTIVE')
          throw invalidState(`The vaulted payment method ${id} is ${transaction.status} and cannot be charged.`);
        if (quote.totalMinor <= 0) throw invalidInput('A charge must be of more than zero; nothing was charged.');
        const method = transaction.paymentMethodId
          ? await repos.paymentMethods.find(transaction.paymentMethodId)
          : undefined;
        if (!method) throw invalidState(`Transaction ${id} has no stored payment method.`);
        const plan: VaultedPlan = {
          transactionId: id,
          token: method.token,
          quote,
          description: input.chargeDescription ?? null,
        };
        const attempt = pendingAttempt({
          scope,
          kind: 'VAULTED',
          key: latest.key,
          transactionId: id,
          amountMinor: quote.totalMinor,
          currency: quote.currency,
          now,
          plan,
        });
        // Committed with this transaction, before the gateway is asked.
        const recorded = await repos.chargeAttempts.record(attempt);
        return { existing: recorded.fresh ? undefined : recorded.attempt, attempt: recorded.attempt, quote } as const;
      });

      const { existing, quote } = prepared;
      if (existing) {
        // The same key again: the same charge, never a second one.
        if (!sameCharge(existing, quote)) throw otherAmount();
        if (existing.status !== 'PENDING' && existing.status !== 'UNKNOWN') return answer(existing, quote);
        const { settled, outcome } = await ask(existing, true);
        if (settled.status === 'PENDING' || settled.status === 'UNKNOWN') {
          throw new AppError(
            'PAYMENT_PENDING',
            'This charge is still being confirmed by the payment provider; retry later with the same Idempotency-Key.',
            {
              retryAfterSeconds: 5,
            },
          );
        }
        return answer(settled, quote, outcome);
      }
      const { settled, outcome } = await ask(prepared.attempt!, false);
      return answer(settled, quote, outcome);
    },
  };
}

export type VaultedChargeService = ReturnType<typeof vaultedChargeService>;
