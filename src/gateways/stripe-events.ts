import type Stripe from 'stripe';
import type { InboundEvent, ProcessorEvent } from '../domain/payments/index.ts';
import { idOf, METADATA_ATTEMPT } from './stripe-ids.ts';
import { tokenOf } from './stripe-outcomes.ts';

// Stripe's events as the processor events opentill books (decisions §10b), read through the SDK.

/** The opentill attempt a PaymentIntent (or SetupIntent) was made for, from its metadata. */
const attemptOf = (object: { metadata?: Stripe.Metadata | null }) => object.metadata?.[METADATA_ATTEMPT] ?? null;

export async function translate(stripe: Stripe, inbound: InboundEvent): Promise<ProcessorEvent> {
  const event = JSON.parse(inbound.payload) as Stripe.Event;
  const ignored = (reason: string): ProcessorEvent => ({ kind: 'ignored', reason });
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled':
    case 'payment_intent.requires_action':
    case 'setup_intent.succeeded':
    case 'setup_intent.setup_failed': {
      const object = event.data.object;
      const attemptId = attemptOf(object);
      return attemptId ? { kind: 'payment', attemptId, reference: object.id } : ignored('not made by opentill');
    }
    case 'charge.refunded':
    case 'charge.refund.updated':
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed': {
      const paymentIntent = idOf(event.data.object.payment_intent);
      if (!paymentIntent) return ignored('not a PaymentIntent');
      const intent = await stripe.paymentIntents.retrieve(paymentIntent);
      const attemptId = attemptOf(intent);
      if (!attemptId) return ignored('not made by opentill');
      // Every refund of the payment as Stripe has it now: the order events come in does not matter.
      const refunds = await stripe.refunds.list({ payment_intent: paymentIntent, limit: 100 });
      return {
        kind: 'refunds',
        paymentReference: paymentIntent,
        attemptId,
        // A pending refund is on its way to the customer (the money has left the vendor's balance); a
        // failed or canceled one is not, whether or not it was booked.
        refunds: refunds.data
          .filter((r) => r.status !== 'requires_action')
          .map((r) => ({
            reference: r.id,
            amountMinor: r.amount,
            currency: r.currency.toUpperCase(),
            refundAttemptId: r.metadata?.opentill_refund ?? null,
            failed: r.status === 'failed' || r.status === 'canceled',
          })),
      };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated': {
      const paymentIntent = idOf(event.data.object.payment_intent);
      if (!paymentIntent) return ignored('not a PaymentIntent');
      const intent = await stripe.paymentIntents.retrieve(paymentIntent, { expand: ['payment_method'] });
      const attemptId = attemptOf(intent);
      if (!attemptId) return ignored('not made by opentill');
      // The dispute as it stands now, not as this (perhaps old) event saw it.
      const dispute = await stripe.disputes.retrieve(event.data.object.id);
      return {
        kind: 'dispute',
        paymentReference: paymentIntent,
        attemptId,
        disputeReference: dispute.id,
        amountMinor: dispute.amount,
        currency: dispute.currency.toUpperCase(),
        outcome: disputeOutcome(dispute.status),
        byProvider: decidedByProvider(intent.payment_method),
      };
    }
    case 'mandate.updated':
      return mandateEvent(stripe, event.data.object);
    default:
      return ignored(`opentill does not act on ${event.type}`);
  }
}

/** A dispute's status as opentill acts on it: won, lost, or still open (every other status). */
function disputeOutcome(status: string): 'open' | 'won' | 'lost' {
  if (status === 'won') return 'won';
  return status === 'lost' ? 'lost' : 'open';
}

/**
 * Who decided a dispute: a card's issuer (also for a card in Apple Pay or Google Pay, whose disputes
 * are the card network's), or the provider of any other method: PayPal, Klarna, Link, the bank of a
 * SEPA or ACH debit (§37).
 */
function decidedByProvider(method: Stripe.PaymentMethod | string | null): boolean {
  return typeof method === 'object' && method !== null && method.type !== 'card';
}

/**
 * A mandate no longer active: the customer revoked it at their bank or wallet (a SEPA mandate, a PayPal
 * billing agreement), so the stored method can never be charged again. Its token names it as opentill stored it.
 */
async function mandateEvent(stripe: Stripe, mandate: Stripe.Mandate): Promise<ProcessorEvent> {
  if (mandate.status !== 'inactive') return { kind: 'ignored', reason: `a mandate now ${mandate.status}` };
  const method = await stripe.paymentMethods.retrieve(idOf(mandate.payment_method)!);
  const customer = idOf(method.customer);
  if (!customer) return { kind: 'ignored', reason: 'a payment method no customer keeps' };
  return { kind: 'method-revoked', token: tokenOf(customer, method.id, method.type) };
}
