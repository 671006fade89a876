import type Stripe from 'stripe';
import { stripeSdk } from './stripe-sdk.ts';
import {
  declineMessage,
  type ChargeResult,
  type Decline,
  type DeclineCode,
  type NotFound,
  type TokenizedCard,
} from '../domain/payments/index.ts';
import { idOf, METADATA_ATTEMPT, METADATA_SESSION } from './stripe-ids.ts';

/*
 * Where a charge stands at Stripe, in opentill's terms: a PaymentIntent's or SetupIntent's outcome,
 * found by its reference or by the attempt in its metadata, and what can no longer be paid cancelled.
 */

/** The Stripe client and the clock of one gateway, which its calls share. */
export interface StripeCalls {
  stripe: Stripe;
  now: () => Date;
}

/** A browser session the customer left unfinished this long is cancelled, so it can never be paid later. */
export const SESSION_LIFETIME_MS = 60 * 60_000;

/**
 * What opentill stores as a method's token: Stripe's customer and payment method ids, and the method's
 * type when it is not a card (a later off-session charge allows exactly that type; §37).
 */
export const tokenOf = (customer: string, paymentMethod: string, type = 'card') =>
  type === 'card' ? `${customer}/${paymentMethod}` : `${customer}/${paymentMethod}/${type}`;

/** A token (tokenOf) read back as Stripe's customer and payment method ids and the method's type. */
export function parseToken(token: string): { customer: string; paymentMethod: string; type: string } | undefined {
  const match = /^(cus_\w+)\/(pm_\w+)(?:\/([a-z_]+))?$/.exec(token);
  return match ? { customer: match[1]!, paymentMethod: match[2]!, type: match[3] ?? 'card' } : undefined;
}

/** Stripe's error code and decline reason as opentill's decline code; anything else is a plain decline. */
function declineCodeOf(code: string | undefined, reason: string): DeclineCode {
  if (code === 'authentication_required' || reason === 'authentication_required') return 'authentication_required';
  if (reason === 'insufficient_funds') return 'insufficient_funds';
  if (reason === 'expired_card' || code === 'expired_card') return 'expired_card';
  if (reason === 'incorrect_number' || reason === 'invalid_number') return 'invalid_card';
  return 'card_declined';
}

/** A decline as opentill words it; Stripe's own codes decide whether the card can ever work again. */
export function declineOf(code: string | undefined, declineCode: string | undefined, reference?: string): Decline {
  const reason = declineCode ?? code ?? 'card_declined';
  const mapped = declineCodeOf(code, reason);
  const permanent =
    mapped === 'expired_card' ||
    mapped === 'invalid_card' ||
    ['lost_card', 'stolen_card', 'pickup_card', 'restricted_card'].includes(reason);
  return {
    status: 'DECLINED',
    code: mapped,
    message: declineMessage(mapped),
    permanent,
    ...(reference ? { reference } : {}),
  };
}

/** The last digits a bank-account method has (SEPA's IBAN, a US or UK account); '' for one without. */
function accountDigitsOf(method: Stripe.PaymentMethod): string {
  return (
    method.sepa_debit?.last4 ??
    method.us_bank_account?.last4 ??
    method.bacs_debit?.last4 ??
    method.au_becs_debit?.last4 ??
    method.acss_debit?.last4 ??
    ''
  );
}

/**
 * What opentill keeps of the method a customer paid with: a card's brand, last 4, expiry and wallet
 * (Apple Pay, Google Pay); for any other type (SEPA, PayPal, Link, a bank account) its type and the
 * account's last digits, with no brand or expiry (§37).
 */
export function methodOf(
  customer: string | null,
  method: Stripe.PaymentMethod | string | null | undefined,
): TokenizedCard | undefined {
  if (!customer || !method || typeof method === 'string') return undefined;
  if (method.type === 'card' && method.card)
    return {
      token: tokenOf(customer, method.id),
      brand: method.card.brand,
      last4: method.card.last4,
      expMonth: method.card.exp_month,
      expYear: method.card.exp_year,
      type: 'card',
      wallet: method.card.wallet?.type ?? null,
    };
  return {
    token: tokenOf(customer, method.id, method.type),
    brand: '',
    last4: accountDigitsOf(method),
    expMonth: 0,
    expYear: 0,
    type: method.type,
    wallet: null,
  };
}

/**
 * A balance transaction's fee in the payment's currency: the balance may be kept in another (the
 * account's), and then the fee is converted back with the transaction's own `exchange_rate`. What the
 * ledger books as a payment's fee, and what reconciliation compares it with.
 */
export function feeInPaymentCurrency(
  balance: Pick<Stripe.BalanceTransaction, 'currency' | 'exchange_rate' | 'fee'>,
  paymentCurrency: string,
): number {
  if (balance.currency === paymentCurrency.toLowerCase() || !balance.exchange_rate) return balance.fee;
  return Math.round(balance.fee / balance.exchange_rate);
}

/** Stripe's fee of a payment, in the payment's currency (the balance transaction is in the account's). */
function feeOf(intent: Stripe.PaymentIntent): number {
  const charge = intent.latest_charge;
  const balance = charge && typeof charge !== 'string' ? charge.balance_transaction : null;
  if (!balance || typeof balance === 'string') return 0;
  return feeInPaymentCurrency(balance, intent.currency);
}

const expired = ({ now }: StripeCalls, created: number) => now().getTime() - created * 1000 > SESSION_LIFETIME_MS;

const retrieveIntent = ({ stripe }: StripeCalls, id: string) =>
  stripe.paymentIntents.retrieve(id, { expand: ['latest_charge.balance_transaction', 'payment_method'] });

/** Cancels what can no longer be paid; if the customer completed it meanwhile, that is the outcome. */
export async function cancelIntent(calls: StripeCalls, id: string): Promise<ChargeResult | NotFound> {
  try {
    await calls.stripe.paymentIntents.cancel(id);
    return { status: 'NOT_FOUND' };
  } catch (err) {
    if (!(err instanceof stripeSdk().errors.StripeInvalidRequestError)) throw err;
    const intent = await retrieveIntent(calls, id);
    if (intent.status === 'canceled') return { status: 'NOT_FOUND' };
    const outcome = intentOutcome(intent);
    if (outcome.status === 'UNKNOWN') throw err;
    return outcome;
  }
}

/** Where a PaymentIntent stands, in opentill's terms; UNKNOWN while it is in flight or awaits the customer. */
export function intentOutcome(intent: Stripe.PaymentIntent): ChargeResult | NotFound {
  switch (intent.status) {
    case 'succeeded':
      return {
        status: 'SUCCEEDED',
        reference: intent.id,
        feeMinor: feeOf(intent),
        method: methodOf(idOf(intent.customer), intent.payment_method),
      };
    case 'canceled':
      return { status: 'NOT_FOUND' };
    case 'requires_payment_method': {
      const error = intent.last_payment_error;
      return error ? declineOf(error.code, error.decline_code, intent.id) : { status: 'UNKNOWN' };
    }
    default:
      // processing, requires_action, requires_confirmation, requires_capture
      return { status: 'UNKNOWN' };
  }
}

/** A browser session (PaymentIntent or SetupIntent) the customer may still be completing. */
export async function lookupSession(calls: StripeCalls, reference: string): Promise<ChargeResult | NotFound> {
  const { stripe } = calls;
  if (reference.startsWith('seti_')) {
    const setup = await stripe.setupIntents.retrieve(reference, { expand: ['payment_method'] });
    if (setup.status === 'succeeded') {
      return {
        status: 'SUCCEEDED',
        reference: '',
        feeMinor: 0,
        method: methodOf(idOf(setup.customer), setup.payment_method),
      };
    }
    if (setup.status === 'canceled') return { status: 'NOT_FOUND' };
    // Still with the customer (a declined card may be followed by another): open until it expires.
    if (setup.status !== 'processing' && expired(calls, setup.created)) {
      await stripe.setupIntents.cancel(reference);
      return { status: 'NOT_FOUND' };
    }
    return { status: 'UNKNOWN' };
  }
  const intent = await retrieveIntent(calls, reference);
  const outcome = intentOutcome(intent);
  // An off-session payment (a renewal the bank holds for the customer's authentication) is what it is.
  if (
    !intent.metadata?.[METADATA_SESSION] ||
    outcome.status === 'SUCCEEDED' ||
    outcome.status === 'NOT_FOUND' ||
    intent.status === 'processing'
  )
    return outcome;
  // A browser session the customer is still at: after a decline they may try another card in the same
  // element. Left unfinished for an hour, it is cancelled so it can never be paid later.
  return expired(calls, intent.created) ? cancelIntent(calls, intent.id) : { status: 'UNKNOWN' };
}

/** The outcome of an off-session charge made under `attemptId`, found by the metadata it carries. */
export async function lookupByAttempt(calls: StripeCalls, attemptId: string): Promise<ChargeResult | NotFound> {
  const found = await calls.stripe.paymentIntents.search({
    query: `metadata['${METADATA_ATTEMPT}']:'${attemptId}'`,
    limit: 1,
  });
  const intent = found.data[0];
  if (!intent) return { status: 'NOT_FOUND' };
  return intentOutcome(await retrieveIntent(calls, intent.id));
}
