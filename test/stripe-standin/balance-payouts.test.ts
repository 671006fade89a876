import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { rejection } from './rejection.ts';

/** The balance's transactions and the payouts made of them, listed as Stripe lists them (what a reconciliation reads). */
describe('Stripe stand-in: balance transactions and payouts', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  let now = Date.parse('2031-05-01T10:00:00Z');

  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual', now: () => now });
    stripe = s.client();
  });
  after(() => s.close());

  const paid = (amount: number, currency = 'usd') =>
    stripe.paymentIntents.create({
      amount,
      currency,
      payment_method: 'pm_card_visa',
      allowed_payment_method_types: ['card'],
      confirm: true,
    });
  const all = async (params: Stripe.BalanceTransactionListParams) => {
    const out: Stripe.BalanceTransaction[] = [];
    for await (const txn of stripe.balanceTransactions.list(params)) out.push(txn);
    return out;
  };

  test('a charge, a refund and a dispute each move the balance: amount, fee, net, type, reporting category, source', async () => {
    const pi = await paid(4000);
    now += 60_000;
    const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 1000 });
    now += 60_000;
    const dispute = await s.openDispute(pi.id);
    const listed = await all({ created: { gte: Date.parse('2031-05-01T00:00:00Z') / 1000 }, expand: ['data.source'] });
    assert.deepEqual(
      listed.map((t) => [t.type, t.reporting_category, t.amount, t.fee, t.net, t.currency]),
      [
        ['adjustment', 'dispute', -3000, 1500, -4500, 'usd'],
        ['refund', 'refund', -1000, 0, -1000, 'usd'],
        ['charge', 'charge', 4000, 146, 3854, 'usd'],
      ],
    );
    const sources = listed.map((t) => t.source as { id: string; object: string });
    assert.deepEqual(
      sources.map((o) => o.id),
      [dispute.id, refund.id, pi.latest_charge],
    );
    assert.equal((listed[2]!.source as Stripe.Charge).payment_intent, pi.id, 'the charge, expanded, names its payment');
    assert.ok(listed.every((t) => t.available_on >= t.created && t.status === 'available'));
  });

  test('filters: created range, type, source, currency; pages with has_more and starting_after', async () => {
    now = Date.parse('2031-06-01T00:00:00Z');
    for (const amount of [1000, 2000, 3000, 4000, 5000]) {
      await paid(amount, 'eur');
      now += 1000;
    }
    const june = { gte: Date.parse('2031-06-01T00:00:00Z') / 1000, lt: Date.parse('2031-07-01T00:00:00Z') / 1000 };
    const first = await stripe.balanceTransactions.list({ created: june, limit: 2 });
    assert.deepEqual(
      first.data.map((t) => t.amount),
      [5000, 4000],
    );
    assert.equal(first.has_more, true);
    const second = await stripe.balanceTransactions.list({
      created: june,
      limit: 2,
      starting_after: first.data[1]!.id,
    });
    assert.deepEqual(
      second.data.map((t) => t.amount),
      [3000, 2000],
    );
    const last = await stripe.balanceTransactions.list({ created: june, limit: 2, starting_after: second.data[1]!.id });
    assert.deepEqual([last.data.map((t) => t.amount), last.has_more], [[1000], false]);
    assert.equal((await all({ created: june, limit: 2 })).length, 5, 'the SDK pages through them all');
    assert.equal((await all({ created: { lt: june.gte } })).length, 3, 'May only');
    assert.equal((await all({ type: 'refund' })).length, 1);
    assert.equal((await all({ currency: 'EUR' })).length, 5, 'a currency in either case');
    const charge = first.data[0]!.source as string;
    assert.deepEqual(
      (await all({ source: charge })).map((t) => t.id),
      [first.data[0]!.id],
    );
  });

  test('unknown, unmodelled and invalid list parameters are refused as Stripe refuses them', async () => {
    const unknown = await rejection(
      stripe.balanceTransactions.list({ colour: 'blue' } as Stripe.BalanceTransactionListParams),
    );
    assert.equal(unknown.code, 'parameter_unknown');
    const type = await rejection(stripe.balanceTransactions.list({ type: 'sale' }));
    assert.equal(type.param, 'type');
    const limit = await rejection(stripe.balanceTransactions.list({ limit: 101 }));
    assert.equal(limit.param, 'limit');
    const expand = await rejection(stripe.balanceTransactions.list({ expand: ['data.fee_details'] }));
    assert.equal(expand.param, 'expand');
    const payout = await rejection(stripe.balanceTransactions.list({ payout: 'po_nothing' }));
    assert.equal(payout.code, 'resource_missing');
    const destination = await rejection(stripe.payouts.list({ destination: 'ba_1' }));
    assert.match(destination.message, /stand-in does not implement/);
  });

  test("a payout takes each currency's available balance; its transactions are listed by payout and sum to it", async () => {
    const made = await s.payOut();
    // US dollars: 38.54 from the charge less 10.00 refunded and 45.00 disputed is below zero, and waits.
    assert.deepEqual(
      made.map((p) => p.currency),
      ['eur'],
    );
    const eur = made[0]!;
    const eurNet = (await all({ currency: 'eur', type: 'charge' })).reduce((sum, t) => sum + t.net, 0);
    assert.equal(eur.amount, eurNet);
    assert.deepEqual([eur.status, eur.automatic, eur.reconciliation_status], ['paid', true, 'completed']);
    assert.equal(eur.arrival_date, eur.created + 2 * 86_400);
    const inPayout = await all({ payout: eur.id });
    assert.equal(inPayout.length, 6, 'its five charges and its own payout transaction');
    const own = inPayout.find((t) => t.type === 'payout')!;
    assert.deepEqual([own.amount, own.source, own.reporting_category], [-eur.amount, eur.id, 'payout']);
    assert.equal(
      inPayout.filter((t) => t.type !== 'payout').reduce((sum, t) => sum + t.net, 0),
      eur.amount,
    );
    assert.equal((await stripe.payouts.retrieve(eur.id)).amount, eur.amount);
    const listed = await stripe.payouts.list({ created: { gte: eur.created }, expand: ['data.balance_transaction'] });
    assert.deepEqual(
      listed.data.map((p) => (p.balance_transaction as Stripe.BalanceTransaction).id),
      [own.id],
    );
    assert.deepEqual(await s.payOut(), [], 'nothing is left to pay out');
  });
});
