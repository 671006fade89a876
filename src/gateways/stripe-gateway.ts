import type Stripe from 'stripe';
import { stripeSdk } from './stripe-sdk.ts';
import type { StripeKeys } from '../config.ts';
import type {
  ChargeRequest,
  ChargeResult,
  EventCheck,
  PaymentGateway,
  RefundRequest,
  RefundResult,
  SessionRequest,
  SessionStart,
} from '../domain/payments/index.ts';
import { stripeBooks } from './stripe-books.ts';
import { translate } from './stripe-events.ts';
import { idOf, METADATA_ATTEMPT, METADATA_SESSION } from './stripe-ids.ts';
import {
  cancelIntent,
  declineOf,
  intentOutcome,
  lookupByAttempt,
  lookupSession,
  parseToken,
  type StripeCalls,
} from './stripe-outcomes.ts';

export { SESSION_LIFETIME_MS } from './stripe-outcomes.ts';

/**
 * Stripe, through its official SDK. The card never reaches opentill: the customer types it into
 * Stripe's Payment Element, and opentill keeps only Stripe's ids (customer and payment method),
 * brand, last 4 and expiry. Every call that can move money carries an idempotency key derived from
 * the opentill attempt, and every object opentill creates names that attempt in its metadata, so a
 * lost answer is found again by key and an event is traced back to its attempt.
 */
export interface StripeGatewayOptions {
  keys: StripeKeys;
  /** Another host for the API (the tests' stand-in); Stripe's own by default. */
  apiUrl?: string | undefined;
  /** Where the browser loads Stripe.js from. */
  jsUrl: string;
  /** The SDK gives up on a call after this; the charge protocol then treats it as unknown. */
  timeoutMs: number;
  now?: () => Date;
  /** Items a list request asks for when the books are read (Stripe's most, 100, unless a test pages in smaller steps). */
  listPageSize?: number | undefined;
}

/** An attempt asked again this long after it was recorded is looked up before it is charged (Stripe keeps idempotency keys for 24 hours). */
const LOOK_BEFORE_CHARGING_AFTER_MS = 60 * 60_000;

/** A browser session: a PaymentIntent for an amount, a SetupIntent to keep a card for later. */
async function startSession({ stripe }: StripeCalls, request: SessionRequest): Promise<SessionStart> {
  const metadata = { [METADATA_ATTEMPT]: request.attemptId, [METADATA_SESSION]: '1' };
  try {
    const customer =
      request.customer.reference ??
      (request.replacesCard ? parseToken(request.replacesCard)?.customer : undefined) ??
      (
        await stripe.customers.create(
          {
            email: request.customer.email,
            ...(request.customer.name ? { name: request.customer.name } : {}),
            metadata,
          },
          { idempotencyKey: `${request.attemptId}:customer` },
        )
      ).id;
    if (request.amountMinor > 0) {
      const intent = await stripe.paymentIntents.create(
        {
          amount: request.amountMinor,
          currency: request.currency.toLowerCase(),
          customer,
          // Every method the account offers for this currency (Stripe's dynamic payment methods); to be kept
          // for later, only those that can be charged off-session: Stripe leaves out the rest (§37).
          automatic_payment_methods: { enabled: true },
          ...(request.saveForLater ? { setup_future_usage: 'off_session' as const } : {}),
          description: request.description,
          metadata,
        },
        { idempotencyKey: `${request.attemptId}:session` },
      );
      return { status: 'OPEN', reference: intent.id, clientSecret: intent.client_secret!, mode: 'payment' };
    }
    const setup = await stripe.setupIntents.create(
      {
        customer,
        automatic_payment_methods: { enabled: true },
        usage: 'off_session',
        description: request.description,
        metadata,
      },
      { idempotencyKey: `${request.attemptId}:session` },
    );
    return { status: 'OPEN', reference: setup.id, clientSecret: setup.client_secret!, mode: 'setup' };
  } catch (err) {
    if (err instanceof stripeSdk().errors.StripeCardError) return declineOf(err.code, err.decline_code);
    return {
      status: 'DECLINED',
      code: 'provider_unavailable',
      message: 'The payment processor could not be reached; nothing was charged. Try again in a moment.',
      permanent: false,
    };
  }
}

/** An off-session charge of a stored card, under the attempt's id as its idempotency key. */
async function charge(calls: StripeCalls, request: ChargeRequest): Promise<ChargeResult> {
  const { stripe, now } = calls;
  const token = parseToken(request.token);
  if (!token)
    return {
      status: 'DECLINED',
      code: 'card_declined',
      message: 'The stored payment method cannot be used with this processor.',
      permanent: true,
    };
  if (request.recordedAt && now().getTime() - Date.parse(request.recordedAt) > LOOK_BEFORE_CHARGING_AFTER_MS) {
    // Stripe may have forgotten the idempotency key by now: find the charge by its metadata first.
    const earlier = await lookupByAttempt(calls, request.attemptId);
    if (earlier.status !== 'NOT_FOUND') return earlier;
  }
  try {
    const intent = await stripe.paymentIntents.create(
      {
        amount: request.amountMinor,
        currency: request.currency.toLowerCase(),
        customer: token.customer,
        payment_method: token.paymentMethod,
        // The stored method's own type: nothing else may be charged, and none of its kind redirects off-session.
        allowed_payment_method_types: [token.type as Stripe.PaymentIntentCreateParams.AllowedPaymentMethodType],
        off_session: true,
        confirm: true,
        metadata: { [METADATA_ATTEMPT]: request.attemptId },
        expand: ['latest_charge.balance_transaction', 'payment_method'],
      },
      { idempotencyKey: request.attemptId },
    );
    const outcome = intentOutcome(intent);
    return outcome.status === 'NOT_FOUND' ? { status: 'UNKNOWN' } : outcome;
  } catch (err) {
    if (err instanceof stripeSdk().errors.StripeCardError)
      return declineOf(err.code, err.decline_code, err.payment_intent?.id);
    // A card Stripe no longer has (detached, deleted): it will never work again.
    if (err instanceof stripeSdk().errors.StripeInvalidRequestError && err.code === 'resource_missing') {
      return {
        status: 'DECLINED',
        code: 'card_declined',
        message: 'The stored card is no longer available.',
        permanent: true,
      };
    }
    // Anything else (no answer, a timeout, a 5xx, a conflict on the key): unknown, asked again under the same key.
    return { status: 'UNKNOWN' };
  }
}

/** A refund of a Stripe payment, under the refund's id as its idempotency key. */
async function refund(stripe: Stripe, request: RefundRequest): Promise<RefundResult> {
  if (!request.chargeReference?.startsWith('pi_'))
    return { status: 'FAILED', message: 'This payment was not made through Stripe.' };
  try {
    const refund = await stripe.refunds.create(
      {
        payment_intent: request.chargeReference,
        amount: request.amountMinor,
        metadata: { opentill_refund: request.refundId },
      },
      { idempotencyKey: request.refundId },
    );
    return refund.status === 'failed' || refund.status === 'canceled'
      ? { status: 'FAILED', message: 'Stripe could not make the refund.' }
      : { status: 'SUCCEEDED', reference: refund.id };
  } catch (err) {
    if (err instanceof stripeSdk().errors.StripeInvalidRequestError) return { status: 'FAILED', message: err.message };
    return { status: 'UNKNOWN' };
  }
}

/** The refund made under `refundId`, found among the payment's refunds by the id in its metadata. */
async function lookupRefund(stripe: Stripe, refundId: string, chargeReference?: string | null) {
  if (!chargeReference?.startsWith('pi_')) return { status: 'NOT_FOUND' } as const;
  const refunds = await stripe.refunds.list({ payment_intent: chargeReference, limit: 100 });
  const refund = refunds.data.find((r) => r.metadata?.opentill_refund === refundId);
  if (!refund) return { status: 'NOT_FOUND' } as const;
  if (refund.status === 'failed' || refund.status === 'canceled')
    return { status: 'FAILED', message: 'Stripe could not make the refund.' } as const;
  return { status: 'SUCCEEDED', reference: refund.id } as const;
}

/** What the browser needs to authenticate a payment the bank holds for the customer, if it waits for that. */
async function authenticationSession(stripe: Stripe, reference: string) {
  if (!reference.startsWith('pi_')) return undefined;
  const intent = await stripe.paymentIntents.retrieve(reference);
  const waiting =
    intent.status === 'requires_action' ||
    intent.status === 'requires_confirmation' ||
    (intent.status === 'requires_payment_method' && intent.last_payment_error?.code === 'authentication_required');
  if (!waiting || !intent.client_secret) return undefined;
  return {
    clientSecret: intent.client_secret,
    method: idOf(intent.last_payment_error?.payment_method) ?? idOf(intent.payment_method),
  };
}

/** A webhook's body checked against its Stripe-Signature header and the endpoint's signing secret. */
function verifyEvent(stripe: Stripe, keys: StripeKeys, rawBody: Buffer, signature: string | undefined): EventCheck {
  if (!keys.webhookSecret)
    return { status: 'INVALID', message: 'STRIPE_WEBHOOK_SECRET is not set: run `opentill stripe setup`.' };
  if (!signature) return { status: 'INVALID', message: 'The Stripe-Signature header is missing.' };
  try {
    const event = stripe.webhooks.constructEvent(rawBody, signature, keys.webhookSecret);
    return {
      status: 'OK',
      event: {
        id: event.id,
        type: event.type,
        createdAt: new Date(event.created * 1000).toISOString(),
        payload: rawBody.toString('utf8'),
      },
    };
  } catch (err) {
    return {
      status: 'INVALID',
      message: `The Stripe signature does not match this endpoint's signing secret or is too old: ${(err as Error).message}`,
    };
  }
}

export function stripeGateway(options: StripeGatewayOptions): PaymentGateway {
  const api = new URL(options.apiUrl ?? 'https://api.stripe.com');
  const stripe = new (stripeSdk())(options.keys.secretKey, {
    host: api.hostname,
    port: api.port || (api.protocol === 'https:' ? 443 : 80),
    protocol: api.protocol === 'http:' ? 'http' : 'https',
    // The charge protocol retries under the same key itself; the SDK's own retries would hide a lost answer.
    maxNetworkRetries: 0,
    timeout: options.timeoutMs,
    appInfo: { name: 'opentill' },
  });
  const calls: StripeCalls = { stripe, now: options.now ?? (() => new Date()) };

  return {
    provider: 'STRIPE',
    cardEntry: {
      kind: 'browser',
      library: 'stripe',
      scriptUrl: options.jsUrl,
      publicKey: options.keys.publishableKey,
      origins: [...new Set([new URL(options.jsUrl).origin, api.origin])],
    },

    async tokenize() {
      // Card numbers never come to opentill with a processor that takes them in the browser.
      return {
        status: 'DECLINED',
        code: 'invalid_card',
        message: 'Card details are taken by the payment page of the processor.',
        permanent: true,
      };
    },

    startSession: (request) => startSession(calls, request),
    charge: (request) => charge(calls, request),
    refund: (request) => refund(stripe, request),
    async lookupCharge(attemptId, reference) {
      return reference ? lookupSession(calls, reference) : lookupByAttempt(calls, attemptId);
    },
    lookupRefund: (refundId, chargeReference) => lookupRefund(stripe, refundId, chargeReference),
    authenticationSession: (reference) => authenticationSession(stripe, reference),
    cancelPending: (reference) =>
      reference.startsWith('pi_') ? cancelIntent(calls, reference) : Promise.resolve({ status: 'NOT_FOUND' as const }),
    verifyEvent: (rawBody, signature) => verifyEvent(stripe, options.keys, rawBody, signature),
    translateEvent: (event) => translate(stripe, event),
    books: stripeBooks(stripe, options.listPageSize),
  };
}
