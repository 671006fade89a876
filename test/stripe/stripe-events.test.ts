import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { STRIPE_EVENTS } from '../../src/gateways/stripe-setup.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';

/**
 * What happens at Stripe reaches the ledger and the feed through Stripe's signed events, once each
 * (issue 13): a refund made in the dashboard, a dispute, a won dispute, a renewal the customer
 * authenticated; replayed, reordered and duplicated events change nothing twice.
 */
type Entry = { type: string; amountTotal: string };

for (const kind of await storeKinds()) {
  describe(`Stripe's events (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, { clock, now: () => clock.now(), billing: { unknownRetryMs: 0 } });
    });
    after(() => w?.close());

    const read = async (id: string) =>
      (await w.vendor.api(`/v1/transaction/${id}`, { environment: 'production' })).json;
    const feed = async () =>
      (await w.vendor.api('/v1/changed-transactions', { environment: 'production' })).json as {
        id: string;
        changeStatus: string;
      }[];
    const markProcessed = (id: string) =>
      w.vendor.api(`/v1/changed-transactions/${id}`, { method: 'POST', environment: 'production' });
    const product = (input: Parameters<StripeWorld['vendor']['product']>[0]) => w.vendor.product(input, 'production');
    const paymentOf = async (transactionId: string) => {
      const found = await w.stripe.paymentIntents.list({ limit: 100 });
      const attempt = await w.app.services.store.chargeAttempts.latestFor(transactionId, 'PURCHASE');
      return found.data.find((i) => i.metadata.opentill_attempt === attempt!.id)!;
    };
    /** Every event Stripe made so far, delivered again (as Stripe's retries and replays do). */
    const subscribed = () => w.standin.events().filter((e) => (STRIPE_EVENTS as readonly string[]).includes(e.type));
    const replayAll = async () => {
      for (const event of subscribed()) await w.standin.deliver(event.id, { times: 2 });
      await w.app.services.processorEvents.runDue();
    };
    /** Time passes between what happens at Stripe and what opentill did before (the ledger is in time order). */
    const later = async () => {
      clock.advance(60_000);
      await w.settleEvents();
    };
    const buy = async (email: string, card = '4242424242424242', type: 'ONETIME' | 'SUBSCRIPTION' = 'ONETIME') => {
      const p = await product({
        type,
        ...(type === 'SUBSCRIPTION' ? { chargeFrequency: 'MONTHLY' } : {}),
        prices: [{ currency: 'USD', value: 40 }],
      });
      const run = await w.checkout(p.id, { email, card });
      assert.equal(run.status, 200, run.html);
      await w.settleEvents();
      await markProcessed(run.transactionId!);
      return run.transactionId!;
    };

    test('a refund made in the Stripe dashboard becomes one refund entry and a REFUNDED change, however often its events come', async () => {
      const id = await buy('dashboard@example.com');
      await w.standin.refundFromDashboard((await paymentOf(id)).id);
      await later();
      await replayAll();
      const t = await read(id);
      assert.equal(t.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.deepEqual(
        t.entries.map((e: Entry) => [e.type, e.amountTotal]),
        [
          ['ONETIME_PAYMENT', '40.00'],
          ['ONETIME_PAYMENT_REFUND', '-40.00'],
        ],
      );
      assert.deepEqual(
        (await feed()).filter((c) => c.id === id).map((c) => c.changeStatus),
        ['CHANGED_STATUS_REFUNDED'],
      );
      // A refund through the API now: there is nothing left to refund.
      assert.equal(
        (await w.vendor.api(`/v1/refund-transaction/${id}`, { method: 'POST', environment: 'production' })).status,
        400,
      );
    });

    test("opentill's own refund and Stripe's event of it make one refund entry", async () => {
      const id = await buy('api-refund@example.com');
      clock.advance(60_000);
      const refund = await w.vendor.api(`/v1/refund-transaction/${id}`, { method: 'POST', environment: 'production' });
      assert.equal(refund.status, 200, refund.text);
      await later();
      await replayAll();
      assert.equal((await read(id)).entries.length, 2);
      assert.equal((await w.stripe.refunds.list({ payment_intent: (await paymentOf(id)).id })).data.length, 1);
    });

    test('a dispute is a CHARGEBACK entry and ends the subscription; the won dispute a second one of the opposite sign; each once', async () => {
      const id = await buy('dispute@example.com', '4242424242424242', 'SUBSCRIPTION');
      const dispute = await w.standin.openDispute((await paymentOf(id)).id);
      await later();
      let t = await read(id);
      assert.equal(t.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(t.whoCanceled, 'TRANSACTION_CLOUD_ADMIN');
      assert.deepEqual(
        t.entries.map((e: Entry) => [e.type, e.amountTotal]),
        [
          ['SUBSCRIPTION_PAYMENT', '40.00'],
          ['CHARGEBACK', '-40.00'],
        ],
      );
      assert.equal((await feed()).find((c) => c.id === id)?.changeStatus, 'CHANGED_STATUS_REFUNDED');
      await markProcessed(id);

      clock.advance(60_000);
      await w.standin.closeDispute(dispute.id, 'won');
      await later();
      await replayAll();
      t = await read(id);
      assert.deepEqual(
        t.entries.map((e: Entry) => [e.type, e.amountTotal]),
        [
          ['SUBSCRIPTION_PAYMENT', '40.00'],
          ['CHARGEBACK', '-40.00'],
          ['CHARGEBACK', '40.00'],
        ],
      );
      assert.equal(t.transactionStatus, 'TRANSACTION_STATUS_REFUNDED', 'the customer is not re-subscribed');
      assert.equal(
        (await feed()).find((c) => c.id === id)?.changeStatus,
        'CHANGED_STATUS_REFUNDED',
        'the vendor hears of the win',
      );
    });

    test('the dispute card: paid, then disputed at once; events delivered newest first end the same', async () => {
      const p = await product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 25 }] });
      const run = await w.checkout(p.id, { email: 'disputed@example.com', card: '4000000000000259' });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      const payment = (await paymentOf(id)).id;
      const opened = w.standin
        .events()
        .find(
          (e) =>
            e.type === 'charge.dispute.created' &&
            (e.data.object as { payment_intent: string }).payment_intent === payment,
        );
      clock.advance(60_000);
      await w.standin.closeDispute((opened!.data.object as { id: string }).id, 'won');
      // Newest first: the win arrives before the dispute it ends.
      for (const event of subscribed().reverse()) await w.standin.deliver(event.id);
      await w.app.services.processorEvents.runDue();
      await replayAll();
      assert.deepEqual(
        (await read(id)).entries.map((e: Entry) => [e.type, e.amountTotal]),
        [
          ['ONETIME_PAYMENT', '25.00'],
          ['CHARGEBACK', '-25.00'],
          ['CHARGEBACK', '25.00'],
        ],
      );
    });

    test('a renewal the bank holds for 3-D Secure stays unpaid in dunning; the customer confirms it on the management page, and it is booked once, page and event alike', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 8 }],
      });
      const run = await w.checkout(p.id, { email: 'held@example.com', card: '4000002760003184' });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      const due = (await w.app.services.store.transactions.find(w.vendor.scope('production'), id))!.nextCharge!;
      clock.set(new Date(Date.parse(due) + 1000));
      const report = await w.app.services.billing.runDue();
      assert.equal(report.declined, 1, JSON.stringify(report));
      const held = await w.app.services.store.chargeAttempts.latestFor(id, 'RENEWAL');
      assert.equal(held?.failureCode, 'authentication_required');
      let t = await read(id);
      assert.equal(t.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(t.entries.length, 1, 'the renewal is not paid yet');
      await w.settleEvents();
      assert.equal(
        (await read(id)).entries.length,
        1,
        'payment_intent.payment_failed does not cancel the held payment',
      );

      // The customer opens the management page: it asks them to confirm the payment.
      const link = await w.vendor.api('/v1/generate-url-to-manage-transactions/held%40example.com', {
        environment: 'production',
      });
      const path = new URL(link.json.url).pathname;
      const page = await (await fetch(`${w.app.url}${path}`)).text();
      assert.match(page, /Your bank asks you to confirm the payment of \$8\.00 for/);
      // The button's script: Stripe.js confirms the held payment, and the bank's challenge is passed.
      const form = await w.confirmHeldPayment(path, id);
      // The page, then Stripe's event, then the page again (a second click), then the events replayed.
      const confirmedPage = await fetch(`${w.app.url}${path}`, form({ action: 'authenticated' }));
      assert.ok(confirmedPage.status === 303 || confirmedPage.status === 200, String(confirmedPage.status));
      await later();
      await fetch(`${w.app.url}${path}`, form({ action: 'authenticated' }));
      assert.equal(await w.app.services.billing.bookAuthenticated(held!, held!.gatewayReference!), 'ALREADY_BOOKED');
      await replayAll();
      t = await read(id);
      assert.deepEqual(
        t.entries.map((e: Entry) => e.type),
        ['SUBSCRIPTION_PAYMENT', 'SUBSCRIPTION_PAYMENT'],
      );
      assert.equal((await feed()).find((c) => c.id === id)?.changeStatus, 'CHANGED_STATUS_RENEWED');
      // The next dunning date does not charge again.
      clock.advance(3 * 86_400_000);
      await w.app.services.billing.runDue();
      assert.equal((await read(id)).entries.length, 2);
    });

    test('events for payments opentill did not make are acknowledged and ignored', async () => {
      const foreign = await w.stripe.paymentIntents.create({
        amount: 999,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        confirm: true,
        allowed_payment_method_types: ['card'],
      } as never);
      assert.equal(foreign.status, 'succeeded');
      await w.standin.refundFromDashboard(foreign.id);
      const before = w.standin.deliveries.length;
      await w.settleEvents();
      const answered = w.standin.deliveries.slice(before);
      assert.ok(answered.length > 0);
      assert.ok(
        answered.every((d) => d.status === 200),
        JSON.stringify(answered),
      );
      const report = await w.app.services.processorEvents.runDue();
      assert.equal(report.failed, 0);
    });
  });
}
