import { latestUnderKey, pendingAttempt, wasVoided } from './charge-attempts.ts';
import { AppError, invalidInput, invalidState, notFound } from '../errors.ts';
import type { ExchangeRates } from '../money/index.ts';
import type { Scope, SellerOfRecord } from '../model.ts';
import { saleRefusal } from '../production-access.ts';
import type { VaultedPlan } from './attempt-plans.ts';
import type { AttemptOf, ChargeAttempt, Store } from '../ports.ts';
import { quotePrice, type PriceQuote, type UsSalesTaxTable } from '../tax/index.ts';

/** Whether an attempt recorded under a client's key is this charge: a key is one amount, in one currency. */
export const sameCharge = (attempt: ChargeAttempt, quote: PriceQuote): attempt is AttemptOf<'VAULTED'> =>
  attempt.kind === 'VAULTED' && attempt.amountMinor === quote.totalMinor && attempt.currency === quote.currency;
export const otherAmount = () =>
  new AppError(
    'IDEMPOTENCY_CONFLICT',
    'This Idempotency-Key was already used for a charge of another amount; use a new key for a new charge.',
  );

/** A vendor's demand to charge a stored method, with the key its attempt is recorded under at first. */
export interface VaultedChargeAsked {
  scope: Scope;
  id: string;
  prices: Record<string, number>;
  chargeDescription?: string | undefined;
  firstKey: string;
  now: Date;
}

/**
 * Prices the charge for the transaction as it is now, locked, and records its attempt, committed with
 * this database transaction before the gateway is asked; or finds the attempt recorded under the same
 * key before (`existing`). Refused: not a vaulted method, one not active or without a stored method,
 * a charge of nothing, and a key used before for another amount.
 */
export async function planVaultedCharge(
  deps: {
    store: Store;
    rates: ExchangeRates;
    usSalesTax?: UsSalesTaxTable | undefined;
    sellerOfRecord: SellerOfRecord;
  },
  asked: VaultedChargeAsked,
) {
  const { scope, id, prices, firstKey, now } = asked;
  return deps.store.transaction(async (repos) => {
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
    // A new charge is a new sale: refused for a suspended vendor, and in production without the seller's identity (docs/decisions.md §24).
    const vendor = await repos.vendors.find(scope.vendorId);
    const refusal = vendor && saleRefusal(vendor, scope.environment, deps.sellerOfRecord);
    if (refusal) throw refusal;
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
      description: asked.chargeDescription ?? null,
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
}
