import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';

const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (e) {
    return e as Stripe.errors.StripeError & { raw: any };
  }
  assert.fail('expected Stripe to refuse');
};

describe('Stripe stand-in: refunds and disputes', () => {
  let s: StripeStandIn;
  let stripe: Stripe;

  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual' });
    stripe = s.client();
  });
  after(() => s.close());

  const paid = (amount = 5000) =>
    stripe.paymentIntents.create({
      amount,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      allowed_payment_method_types: ['card'],
      confirm: true,
      metadata: { order: 'o_refund' },
    });
  const eventsFor = (type: string, id: string) => s.events().filter((e) => e.type === type && JSON.stringify(e.data.object).includes(id));

  test('refunds through the API: partial, then the rest by default, then nothing is left', async () => {
    const pi = await paid();
    const partial = await stripe.refunds.create({ payment_intent: pi.id, amount: 1200, reason: 'requested_by_customer', metadata: { attempt: 'r_1' } });
    assert.equal(partial.object, 'refund');
    assert.equal(partial.status, 'succeeded');
    assert.equal(partial.amount, 1200);
    assert.equal(partial.payment_intent, pi.id);
    assert.equal(partial.charge, pi.latest_charge);
    assert.deepEqual(partial.metadata, { attempt: 'r_1' });
    const txn = await stripe.balanceTransactions.retrieve(partial.balance_transaction as string);
    assert.equal(txn.amount, -1200);
    assert.equal(txn.type, 'refund');
    let charge = await stripe.charges.retrieve(pi.latest_charge as string);
    assert.equal(charge.amount_refunded, 1200);
    assert.equal(charge.refunded, false);

    const tooMuch = await rejection(stripe.refunds.create({ payment_intent: pi.id, amount: 3801 }));
    assert.equal(tooMuch.param, 'amount');
    assert.match(tooMuch.message, /greater than unrefunded amount on charge \(\$38\.00\)/);

    const rest = await stripe.refunds.create({ charge: pi.latest_charge as string });
    assert.equal(rest.amount, 3800);
    charge = await stripe.charges.retrieve(pi.latest_charge as string);
    assert.equal(charge.amount_refunded, 5000);
    assert.equal(charge.refunded, true);
    const none = await rejection(stripe.refunds.create({ payment_intent: pi.id }));
    assert.equal(none.code, 'charge_already_refunded');

    const refunded = eventsFor('charge.refunded', charge.id);
    assert.equal(refunded.length, 2);
    assert.equal((refunded[0]!.data.object as Stripe.Charge).amount_refunded, 1200, 'each event has the charge as it was then');
    assert.equal((refunded[1]!.data.object as Stripe.Charge).amount_refunded, 5000);
    assert.equal(eventsFor('refund.created', partial.id).length, 1);
    const listed = await stripe.refunds.list({ payment_intent: pi.id });
    assert.deepEqual(
      listed.data.map((r) => r.id),
      [rest.id, partial.id],
    );
  });

  test('a refund needs a succeeded payment', async () => {
    const open = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd', allowed_payment_method_types: ['card'] });
    assert.equal((await rejection(stripe.refunds.create({ payment_intent: open.id }))).param, 'payment_intent');
    assert.equal((await rejection(stripe.refunds.create({}))).code, 'parameter_missing');
  });

  test('a refund from the dashboard: no metadata, no request, the same events', async () => {
    const pi = await paid(3000);
    const refund = await s.refundFromDashboard(pi.id, 1000);
    assert.equal(refund.amount, 1000);
    assert.deepEqual(refund.metadata, {});
    const created = eventsFor('refund.created', refund.id)[0]!;
    assert.deepEqual(created.request, { id: null, idempotency_key: null });
    assert.equal(eventsFor('charge.refunded', pi.latest_charge as string).length, 1);
    assert.equal((await stripe.refunds.retrieve(refund.id)).amount, 1000);
    const whole = await s.refundFromDashboard(pi.id);
    assert.equal(whole.amount, 2000);
  });

  test('a dispute won: funds withdrawn, then reinstated; refunds are refused while it is open', async () => {
    const pi = await paid(2500);
    const dispute = await s.openDispute(pi.id);
    assert.equal(dispute.object, 'dispute');
    assert.equal(dispute.status, 'needs_response');
    assert.equal(dispute.reason, 'fraudulent');
    assert.equal(dispute.amount, 2500);
    assert.equal(dispute.payment_intent, pi.id);
    assert.equal(dispute.balance_transactions[0]!.amount, -2500);
    assert.equal(dispute.balance_transactions[0]!.fee, 1500);
    assert.equal((await stripe.charges.retrieve(pi.latest_charge as string)).disputed, true);
    assert.equal((await rejection(stripe.refunds.create({ payment_intent: pi.id }))).code, 'charge_disputed');
    const won = await s.closeDispute(dispute.id, 'won');
    assert.equal(won.status, 'won');
    assert.equal((await stripe.disputes.retrieve(dispute.id)).status, 'won');
    assert.deepEqual(
      s
        .events()
        .filter((e) => e.type.startsWith('charge.dispute.') && (e.data.object as Stripe.Dispute).id === dispute.id)
        .map((e) => e.type),
      ['charge.dispute.created', 'charge.dispute.funds_withdrawn', 'charge.dispute.closed', 'charge.dispute.funds_reinstated'],
    );
  });

  test('a dispute lost: closed, no funds reinstated', async () => {
    const pi = await paid(2500);
    const dispute = await s.openDispute(pi.id);
    const lost = await s.closeDispute(dispute.id, 'lost');
    assert.equal(lost.status, 'lost');
    assert.deepEqual(
      s
        .events()
        .filter((e) => e.type.startsWith('charge.dispute.') && (e.data.object as Stripe.Dispute).id === dispute.id)
        .map((e) => e.type),
      ['charge.dispute.created', 'charge.dispute.funds_withdrawn', 'charge.dispute.closed'],
    );
    await assert.rejects(s.closeDispute(dispute.id, 'won'), /already closed/);
  });
});
