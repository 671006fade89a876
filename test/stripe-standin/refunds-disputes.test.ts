import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { rejection } from './rejection.ts';

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
  const eventsFor = (type: string, id: string) =>
    s.events().filter((e) => e.type === type && JSON.stringify(e.data.object).includes(id));

  test('refunds through the API: partial, then the rest by default, then nothing is left', async () => {
    const pi = await paid();
    const partial = await stripe.refunds.create({
      payment_intent: pi.id,
      amount: 1200,
      reason: 'requested_by_customer',
      metadata: { attempt: 'r_1' },
    });
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
    assert.equal(
      (refunded[0]!.data.object as Stripe.Charge).amount_refunded,
      1200,
      'each event has the charge as it was then',
    );
    assert.equal((refunded[1]!.data.object as Stripe.Charge).amount_refunded, 5000);
    assert.equal(eventsFor('refund.created', partial.id).length, 1);
    const listed = await stripe.refunds.list({ payment_intent: pi.id });
    assert.deepEqual(
      listed.data.map((r) => r.id),
      [rest.id, partial.id],
    );
  });

  test('a refund needs a succeeded payment', async () => {
    const open = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      allowed_payment_method_types: ['card'],
    });
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
      [
        'charge.dispute.created',
        'charge.dispute.funds_withdrawn',
        'charge.dispute.closed',
        'charge.dispute.funds_reinstated',
      ],
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

  test('disputes listed by payment intent or charge; a fully refunded charge cannot be disputed', async () => {
    const pi = await paid(3000);
    await stripe.refunds.create({ payment_intent: pi.id, amount: 1000 });
    const dispute = await s.openDispute(pi.id);
    assert.equal(dispute.amount, 2000, 'what is left of the charge');
    assert.deepEqual(
      (await stripe.disputes.list({ payment_intent: pi.id })).data.map((d) => d.id),
      [dispute.id],
    );
    assert.deepEqual(
      (await stripe.disputes.list({ charge: pi.latest_charge as string })).data.map((d) => d.id),
      [dispute.id],
    );
    const refunded = await paid(3000);
    await stripe.refunds.create({ payment_intent: refunded.id });
    await assert.rejects(s.openDispute(refunded.id), /nothing left to dispute/);
    assert.equal((await stripe.disputes.list({ payment_intent: refunded.id })).data.length, 0);
  });

  test('a refund that fails later: failed with a reason, its money back in the balance, the charge refundable again, three events', async () => {
    const pi = await paid(4000);
    const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 2500 });
    const failed = await s.failRefund(refund.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure_reason, 'expired_or_canceled_card');
    const back = await stripe.balanceTransactions.retrieve(failed.failure_balance_transaction as string);
    assert.equal(back.amount, 2500);
    assert.equal(back.type, 'refund_failure');
    assert.equal((await stripe.refunds.retrieve(refund.id)).status, 'failed');
    const charge = await stripe.charges.retrieve(pi.latest_charge as string);
    assert.equal(charge.amount_refunded, 0);
    assert.equal(charge.refunded, false);
    assert.deepEqual(
      eventsFor('refund.failed', refund.id).map((e) => (e.data.previous_attributes as { status: string }).status),
      ['succeeded'],
    );
    assert.equal(eventsFor('refund.updated', refund.id).length, 1);
    assert.equal(eventsFor('charge.refund.updated', refund.id).length, 1);
    await assert.rejects(s.failRefund(refund.id), /already failed/);
    assert.equal(
      (await stripe.refunds.create({ payment_intent: pi.id })).amount,
      4000,
      'all of it may be refunded again',
    );
  });
});

describe('Stripe stand-in: an account whose balance is in another currency', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual', balance: { currency: 'usd', exchangeRate: 1.1 } });
    stripe = s.client();
  });
  after(() => s.close());

  test("a EUR payment, its refund and its dispute settle in USD at the account's rate, with the rate on each balance transaction", async () => {
    const pi = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'eur',
      payment_method: 'pm_card_visa',
      allowed_payment_method_types: ['card'],
      confirm: true,
    });
    const charge = await stripe.charges.retrieve(pi.latest_charge as string, { expand: ['balance_transaction'] });
    const paidTxn = charge.balance_transaction as Stripe.BalanceTransaction;
    assert.equal(charge.currency, 'eur');
    assert.deepEqual([paidTxn.amount, paidTxn.currency, paidTxn.exchange_rate], [2200, 'usd', 1.1]);
    assert.equal(paidTxn.fee_details[0]!.currency, 'usd');
    assert.equal(paidTxn.net, 2200 - paidTxn.fee);
    const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 500 });
    const refundTxn = await stripe.balanceTransactions.retrieve(refund.balance_transaction as string);
    assert.deepEqual([refund.amount, refund.currency], [500, 'eur']);
    assert.deepEqual([refundTxn.amount, refundTxn.currency, refundTxn.exchange_rate], [-550, 'usd', 1.1]);
    const dispute = await s.openDispute(pi.id);
    assert.deepEqual([dispute.amount, dispute.currency], [1500, 'eur']);
    assert.deepEqual(
      [dispute.balance_transactions[0]!.amount, dispute.balance_transactions[0]!.currency],
      [-1650, 'usd'],
    );
    const usd = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      allowed_payment_method_types: ['card'],
      confirm: true,
    });
    const usdTxn = (await stripe.charges.retrieve(usd.latest_charge as string, { expand: ['balance_transaction'] }))
      .balance_transaction as Stripe.BalanceTransaction;
    assert.deepEqual(
      [usdTxn.amount, usdTxn.exchange_rate],
      [1000, null],
      'a payment in the balance currency is not converted',
    );
  });
});
