import Stripe from 'stripe';
import type { StripeKeys } from '../config.ts';
import {
  declineMessage,
  type ChargeResult,
  type Decline,
  type DeclineCode,
  type NotFound,
  type PaymentGateway,
  type RefundResult,
  type TokenizedCard,
} from '../domain/payments/index.ts';
import { translate } from './stripe-events.ts';
import { idOf, METADATA_ATTEMPT, METADATA_SESSION } from './stripe-ids.ts';

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
}

/** A browser session the customer left unfinished this long is cancelled, so it can never be paid later. */
export const SESSION_LIFETIME_MS = 60 * 60_000;

/** An attempt asked again this long after it was recorded is looked up before it is charged (Stripe keeps idempotency keys for 24 hours). */
const LOOK_BEFORE_CHARGING_AFTER_MS = 60 * 60_000;

/** What opentill stores as a card's token: Stripe's customer and payment method ids. */
const tokenOf = (customer: string, paymentMethod: string) => `${customer}/${paymentMethod}`;
function parseToken(token: string): { customer: string; paymentMethod: string } | undefined {
  const match = /^(cus_\w+)\/(pm_\w+)$/.exec(token);
  return match ? { customer: match[1]!, paymentMethod: match[2]! } : undefined;
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
function declineOf(code: string | undefined, declineCode: string | undefined, reference?: string): Decline {
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

export function stripeGateway(options: StripeGatewayOptions): PaymentGateway {
  const api = new URL(options.apiUrl ?? 'https://api.stripe.com');
  const stripe = new Stripe(options.keys.secretKey, {
    host: api.hostname,
    port: api.port || (api.protocol === 'https:' ? 443 : 80),
    protocol: api.protocol === 'http:' ? 'http' : 'https',
    // The charge protocol retries under the same key itself; the SDK's own retries would hide a lost answer.
    maxNetworkRetries: 0,
    timeout: options.timeoutMs,
    appInfo: { name: 'opentill' },
  });
  const now = options.now ?? (() => new Date());

  function cardOf(
    customer: string | null,
    method: Stripe.PaymentMethod | string | null | undefined,
  ): TokenizedCard | undefined {
    if (!customer || !method || typeof method === 'string' || !method.card) return undefined;
    return {
      token: tokenOf(customer, method.id),
      brand: method.card.brand,
      last4: method.card.last4,
      expMonth: method.card.exp_month,
      expYear: method.card.exp_year,
    };
  }

  /** Stripe's fee of a payment, in the payment's currency (the balance transaction is in the account's). */
  function feeOf(intent: Stripe.PaymentIntent): number {
    const charge = intent.latest_charge;
    const balance = charge && typeof charge !== 'string' ? charge.balance_transaction : null;
    if (!balance || typeof balance === 'string') return 0;
    if (balance.currency === intent.currency || !balance.exchange_rate) return balance.fee;
    return Math.round(balance.fee / balance.exchange_rate);
  }

  const expired = (created: number) => now().getTime() - created * 1000 > SESSION_LIFETIME_MS;

  /** Cancels what can no longer be paid; if the customer completed it meanwhile, that is the outcome. */
  async function cancelIntent(id: string): Promise<ChargeResult | NotFound> {
    try {
      await stripe.paymentIntents.cancel(id);
      return { status: 'NOT_FOUND' };
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
      const intent = await retrieveIntent(id);
      if (intent.status === 'canceled') return { status: 'NOT_FOUND' };
      const outcome = intentOutcome(intent);
      if (outcome.status === 'UNKNOWN') throw err;
      return outcome;
    }
  }

  const retrieveIntent = (id: string) =>
    stripe.paymentIntents.retrieve(id, { expand: ['latest_charge.balance_transaction', 'payment_method'] });

  /** Where a PaymentIntent stands, in opentill's terms; UNKNOWN while it is in flight or awaits the customer. */
  function intentOutcome(intent: Stripe.PaymentIntent): ChargeResult | NotFound {
    switch (intent.status) {
      case 'succeeded':
        return {
          status: 'SUCCEEDED',
          reference: intent.id,
          feeMinor: feeOf(intent),
          method: cardOf(idOf(intent.customer), intent.payment_method),
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
  async function lookupSession(reference: string): Promise<ChargeResult | NotFound> {
    if (reference.startsWith('seti_')) {
      const setup = await stripe.setupIntents.retrieve(reference, { expand: ['payment_method'] });
      if (setup.status === 'succeeded') {
        return {
          status: 'SUCCEEDED',
          reference: '',
          feeMinor: 0,
          method: cardOf(idOf(setup.customer), setup.payment_method),
        };
      }
      if (setup.status === 'canceled') return { status: 'NOT_FOUND' };
      // Still with the customer (a declined card may be followed by another): open until it expires.
      if (setup.status !== 'processing' && expired(setup.created)) {
        await stripe.setupIntents.cancel(reference);
        return { status: 'NOT_FOUND' };
      }
      return { status: 'UNKNOWN' };
    }
    const intent = await retrieveIntent(reference);
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
    return expired(intent.created) ? cancelIntent(intent.id) : { status: 'UNKNOWN' };
  }

  /** The outcome of an off-session charge made under `attemptId`, found by the metadata it carries. */
  async function lookupByAttempt(attemptId: string): Promise<ChargeResult | NotFound> {
    const found = await stripe.paymentIntents.search({
      query: `metadata['${METADATA_ATTEMPT}']:'${attemptId}'`,
      limit: 1,
    });
    const intent = found.data[0];
    if (!intent) return { status: 'NOT_FOUND' };
    return intentOutcome(await retrieveIntent(intent.id));
  }

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

    async startSession(request) {
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
              allowed_payment_method_types: ['card'],
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
            allowed_payment_method_types: ['card'],
            usage: 'off_session',
            description: request.description,
            metadata,
          },
          { idempotencyKey: `${request.attemptId}:session` },
        );
        return { status: 'OPEN', reference: setup.id, clientSecret: setup.client_secret!, mode: 'setup' };
      } catch (err) {
        if (err instanceof Stripe.errors.StripeCardError) return declineOf(err.code, err.decline_code);
        return {
          status: 'DECLINED',
          code: 'provider_unavailable',
          message: 'The payment processor could not be reached; nothing was charged. Try again in a moment.',
          permanent: false,
        };
      }
    },

    async charge(request) {
      const token = parseToken(request.token);
      if (!token)
        return {
          status: 'DECLINED',
          code: 'card_declined',
          message: 'The stored card cannot be used with this processor.',
          permanent: true,
        };
      if (request.recordedAt && now().getTime() - Date.parse(request.recordedAt) > LOOK_BEFORE_CHARGING_AFTER_MS) {
        // Stripe may have forgotten the idempotency key by now: find the charge by its metadata first.
        const earlier = await lookupByAttempt(request.attemptId);
        if (earlier.status !== 'NOT_FOUND') return earlier;
      }
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: request.amountMinor,
            currency: request.currency.toLowerCase(),
            customer: token.customer,
            payment_method: token.paymentMethod,
            allowed_payment_method_types: ['card'],
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
        if (err instanceof Stripe.errors.StripeCardError)
          return declineOf(err.code, err.decline_code, err.payment_intent?.id);
        // A card Stripe no longer has (detached, deleted): it will never work again.
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing') {
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
    },

    async refund(request): Promise<RefundResult> {
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
        if (err instanceof Stripe.errors.StripeInvalidRequestError) return { status: 'FAILED', message: err.message };
        return { status: 'UNKNOWN' };
      }
    },

    async lookupCharge(attemptId, reference) {
      return reference ? lookupSession(reference) : lookupByAttempt(attemptId);
    },

    async lookupRefund(refundId, chargeReference) {
      if (!chargeReference?.startsWith('pi_')) return { status: 'NOT_FOUND' };
      const refunds = await stripe.refunds.list({ payment_intent: chargeReference, limit: 100 });
      const refund = refunds.data.find((r) => r.metadata?.opentill_refund === refundId);
      if (!refund) return { status: 'NOT_FOUND' };
      if (refund.status === 'failed' || refund.status === 'canceled')
        return { status: 'FAILED', message: 'Stripe could not make the refund.' };
      return { status: 'SUCCEEDED', reference: refund.id };
    },

    async authenticationSession(reference) {
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
    },

    cancelPending: (reference) =>
      reference.startsWith('pi_') ? cancelIntent(reference) : Promise.resolve({ status: 'NOT_FOUND' as const }),

    verifyEvent(rawBody, signature) {
      if (!options.keys.webhookSecret)
        return { status: 'INVALID', message: 'STRIPE_WEBHOOK_SECRET is not set: run `opentill stripe setup`.' };
      if (!signature) return { status: 'INVALID', message: 'The Stripe-Signature header is missing.' };
      try {
        const event = stripe.webhooks.constructEvent(rawBody, signature, options.keys.webhookSecret);
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
    },

    translateEvent: (event) => translate(stripe, event),
  };
}
