import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult, NotFound } from '../../src/domain/payments/gateway.ts';
import { stripeGateway } from '../../src/gateways/stripe-gateway.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { storeKinds } from '../helpers/test-app.ts';

/**
 * A charge whose answer was lost, asked about again after Stripe forgot its idempotency key (Stripe
 * keeps keys 24 hours; so does its stand-in, by the test's clock): opentill finds the PaymentIntent by
 * the attempt in its metadata (`opentill_attempt`) instead of charging again, whether a client retries
 * its charge-vaulted, billing asks about an unknown renewal again, or the reconciler asks. What is
 * booked that way carries the same fee as a charge whose answer arrived (Stripe's fee, from the
 * charge's balance transaction), and the adapter reports the same card (brand, last 4, expiry).
 */
const HOUR = 3600_000;
const LOST = { method: 'POST', path: /^\/v1\/payment_intents$/, mode: 'drop-response' } as const;

for (const kind of await storeKinds()) {
  describe(`a charge found by its metadata after Stripe forgot its key (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, {
        clock,
        now: () => clock.now(),
        gatewayTimeoutMs: 1000,
        payments: { gatewayTimeoutMs: 1000, reconcileGraceMs: 0 },
      });
    });
    after(() => w?.close());

    const api = (path: string, init: Parameters<StripeWorld['vendor']['api']>[1] = {}) =>
      w.vendor.api(path, { ...init, environment: 'production' });
    const product = (input: Parameters<StripeWorld['vendor']['product']>[0]) => w.vendor.product(input, 'production');
    /** Stripe's own account of an attempt's charge: its succeeded PaymentIntents, the fee of the first, and the card it charged. */
    async function atStripe(attemptId: string) {
      const intents = (
        await w.stripe.paymentIntents.search({ query: `metadata['opentill_attempt']:'${attemptId}'`, limit: 100 })
      ).data.filter((pi) => pi.status === 'succeeded');
      const intent = await w.stripe.paymentIntents.retrieve(intents[0]!.id, {
        expand: ['latest_charge.balance_transaction', 'payment_method'],
      });
      const balance = (intent.latest_charge as { balance_transaction: { fee: number } }).balance_transaction;
      const card = (
        intent.payment_method as { card: { brand: string; last4: string; exp_month: number; exp_year: number } }
      ).card;
      return {
        charged: intents.length,
        reference: intent.id,
        fee: balance.fee,
        card: { brand: card.brand, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year },
      };
    }
    const attemptUnder = async (keyLike: string) => {
      const rows = await w.app.services.database.kysely
        .selectFrom('charge_attempts')
        .selectAll()
        .where('attempt_key', 'like', keyLike)
        .execute();
      assert.equal(rows.length, 1, keyLike);
      return rows[0]!;
    };
    const entryOf = async (transactionId: string, reference: string) => {
      const entry = (await w.app.services.store.entries.listForTransaction(transactionId)).find(
        (e) => e.externalId === reference,
      );
      assert.ok(entry, `${reference} is booked`);
      return entry;
    };
    async function vaulted(email: string) {
      const p = await product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const run = await w.checkout(p.id, { email });
      assert.equal(run.status, 200, run.html);
      return run.transactionId!;
    }
    const chargeVaulted = (id: string, key: string) =>
      api(`/v1/charge-vaulted/${id}`, {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: { prices: [{ currency: 'USD', value: 37 }] },
      });
    /** A charge-vaulted whose answer never reaches opentill: Stripe charged, opentill says PENDING. */
    async function lostCharge(id: string, key: string) {
      w.standin.faults.add(LOST);
      try {
        const answer = await chargeVaulted(id, key);
        assert.equal(answer.status, 202, answer.text);
      } finally {
        w.standin.faults.clear();
      }
      return attemptUnder(`vaulted:%:${id}:${key}`);
    }
    /** A charge-vaulted answered at once: what a booking of this amount and card carries. */
    async function answeredCharge(id: string, key: string) {
      const answer = await chargeVaulted(id, key);
      assert.equal(answer.status, 200, answer.text);
      const attempt = await attemptUnder(`vaulted:%:${id}:${key}`);
      const stripe = await atStripe(attempt.id);
      return { stripe, entry: await entryOf(id, stripe.reference) };
    }

    test('a charge-vaulted retried under its key 25 hours after its answer was lost is found, not charged again, and booked with the fee of an answered one', async () => {
      const id = await vaulted('vaulted-retry@example.com');
      const answered = await answeredCharge(id, `answered-${id}`);
      assert.ok(answered.entry.transactionFeeMinor > 0);
      assert.equal(answered.entry.transactionFeeMinor, answered.stripe.fee);

      const attempt = await lostCharge(id, 'lost-for-a-day');
      clock.advance(25 * HOUR);
      const retry = await chargeVaulted(id, 'lost-for-a-day');
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.json.status, 'SUCCESS');
      const stripe = await atStripe(attempt.id);
      assert.equal(stripe.charged, 1, 'charged once at Stripe');
      const entry = await entryOf(id, stripe.reference);
      assert.equal(entry.transactionFeeMinor, stripe.fee, "Stripe's fee");
      assert.equal(entry.transactionFeeMinor, answered.entry.transactionFeeMinor, 'the fee of an answered charge');
      assert.equal(entry.incomeMinor, answered.entry.incomeMinor);
      assert.deepEqual(stripe.card, answered.stripe.card, 'the same card');
    });

    test('a charge-vaulted the reconciler asks about 25 hours later is found by its metadata and booked with its fee; the adapter reports its card as a charge answered', async () => {
      const id = await vaulted('vaulted-reconciled@example.com');
      const answered = await answeredCharge(id, `answered-${id}`);
      const attempt = await lostCharge(id, 'reconciled');
      clock.advance(25 * HOUR);
      const report = await w.app.services.reconciler.run();
      assert.ok(report.settled >= 1, JSON.stringify(report));
      assert.equal((await attemptUnder(`vaulted:%:${id}:reconciled`)).status, 'SUCCEEDED');
      const stripe = await atStripe(attempt.id);
      assert.equal(stripe.charged, 1);
      const entry = await entryOf(id, stripe.reference);
      assert.equal(entry.transactionFeeMinor, stripe.fee);
      assert.equal(entry.transactionFeeMinor, answered.entry.transactionFeeMinor);

      // What the reconciler's lookup returned, beside what the stored card is: the one Stripe charged.
      const transaction = (await w.app.services.store.transactions.find(w.vendor.scope('production'), id))!;
      const stored = (await w.app.services.store.paymentMethods.find(transaction.paymentMethodId!))!;
      const gateway = stripeGateway({
        keys: { secretKey: w.standin.secretKey, publishableKey: w.standin.publishableKey, webhookSecret: undefined },
        apiUrl: w.standin.url,
        jsUrl: w.standin.jsUrl,
        timeoutMs: 5000,
        now: () => clock.now(),
      });
      const found: ChargeResult | NotFound = await gateway.lookupCharge(attempt.id, null);
      assert.equal(found.status, 'SUCCEEDED');
      assert.deepEqual(found.status === 'SUCCEEDED' && [found.reference, found.feeMinor], [
        stripe.reference,
        stripe.fee,
      ]);
      const card = found.status === 'SUCCEEDED' ? found.method : undefined;
      assert.deepEqual(
        card && {
          token: card.token,
          brand: card.brand,
          last4: card.last4,
          expMonth: card.expMonth,
          expYear: card.expYear,
        },
        {
          token: stored.token,
          ...stripe.card,
        },
      );
      assert.deepEqual(
        [stored.brand, stored.last4, stored.expMonth, stored.expYear],
        [stripe.card.brand, stripe.card.last4, stripe.card.expMonth, stripe.card.expYear],
      );
    });

    test('a renewal whose answer was lost, asked again by billing after the worker was down 25 hours, is found and booked once with its fee', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 19 }],
      });
      const run = await w.checkout(p.id, { email: 'renewal-found@example.com' });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      const scope = w.vendor.scope('production');
      const due = (await w.app.services.store.transactions.find(scope, id))!.nextCharge!;
      clock.set(new Date(Date.parse(due) + 1000));
      w.standin.faults.add(LOST);
      try {
        assert.equal((await w.app.services.billing.runDue()).unknown, 1);
      } finally {
        w.standin.faults.clear();
      }
      const attempt = await attemptUnder(`renewal:${id}:%`);
      clock.advance(25 * HOUR);
      const report = await w.app.services.billing.runDue();
      assert.equal(report.renewed, 1, JSON.stringify(report));
      const stripe = await atStripe(attempt.id);
      assert.equal(stripe.charged, 1, 'charged once at Stripe');
      const entry = await entryOf(id, stripe.reference);
      assert.equal(entry.type, 'SUBSCRIPTION_PAYMENT');
      assert.equal(entry.transactionFeeMinor, stripe.fee);
      const [first] = await w.app.services.store.entries.listForTransaction(id);
      assert.equal(
        entry.transactionFeeMinor,
        first!.transactionFeeMinor,
        'the fee the first payment of the same amount carries',
      );
      assert.equal((await api(`/v1/cancel-subscription/${id}`, { method: 'POST' })).status, 200);
    });
  });
}
