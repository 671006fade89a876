import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * Production through the Stripe adapter (issue 13), on both stores: the checkout's session priced by
 * opentill, the card confirmed the way Stripe.js confirms it, renewals and charge-vaulted off-session,
 * declines, and the fee Stripe took in the ledger.
 */
const DAY = 86_400_000;
const stripeFee = (amount: number) => Math.round(amount * 0.029) + 30;

for (const kind of await storeKinds()) {
  describe(`production payments through Stripe (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, { clock, now: () => clock.now(), billing: { unknownRetryMs: 0 } });
    });
    after(() => w?.close());

    const read = async (id: string) =>
      (await w.vendor.api(`/v1/transaction/${id}`, { environment: 'production' })).json;
    /** The by-id read has no nextCharge (SPEC 2.1): the store's row has. */
    const nextCharge = async (id: string) =>
      (await w.app.services.store.transactions.find(w.vendor.scope('production'), id))!.nextCharge;
    const toNextCharge = async (id: string) => clock.set(new Date(Date.parse((await nextCharge(id))!) + 1000));
    const product = (input: Parameters<StripeWorld['vendor']['product']>[0]) => w.vendor.product(input, 'production');
    /** Every PaymentIntent Stripe holds for an opentill attempt of this transaction's customer. */
    const intentsAt = async () => (await w.stripe.paymentIntents.list({ limit: 100 })).data;

    test("one-time purchase: the amount is opentill's, the card stays at Stripe, the fee is in the ledger, and events change nothing", async () => {
      const p = await product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 49 }] });
      const run = await w.checkout(p.id, { email: 'one@example.com' });
      assert.equal(run.status, 200, run.html);
      assert.match(run.html, /Payment of <strong>\$49\.00<\/strong> received/);
      const t = await read(run.transactionId!);
      assert.equal(t.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(t.entries.length, 1);
      const intent = (await intentsAt()).find((i) => i.metadata.opentill_attempt && i.amount === 4900)!;
      assert.equal(intent.status, 'succeeded');
      assert.equal(intent.currency, 'usd');
      await w.settleEvents();
      await w.settleEvents();
      const again = await read(run.transactionId!);
      assert.equal(again.entries.length, 1, 'payment_intent.succeeded and friends add nothing');
      const refunds = await w.vendor.api(`/v1/refund-transaction/${run.transactionId}`, {
        method: 'POST',
        environment: 'production',
      });
      assert.equal(refunds.status, 200, refunds.text);
      assert.equal(
        refunds.json[0].transactionFee,
        stripeFee(4900) / 100,
        "Stripe's fee of the payment (2.9% + 30 cents)",
      );
      assert.equal(refunds.json[0].paymentProvider, 'STRIPE');
    });

    test('the card the customer typed is known to opentill only as Stripe ids, brand, last 4 and expiry', async () => {
      const p = await product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const run = await w.checkout(p.id, { email: 'vault@example.com', card: '5555555555554444' });
      assert.equal(run.status, 200, run.html);
      assert.match(run.html, /Your card is saved/);
      assert.equal(run.session?.mode, 'setup', 'nothing due now: a SetupIntent');
      const t = await read(run.transactionId!);
      assert.equal(t.transactionStatus, 'VAULTED_STATUS_ACTIVE');
      const method = await w.app.services.store.paymentMethods.find(
        (await w.app.services.store.transactions.find(w.vendor.scope('production'), t.id))!.paymentMethodId!,
      );
      assert.match(method!.token, /^cus_\w+\/pm_\w+$/);
      assert.deepEqual(
        [method!.brand, method!.last4, method!.expMonth, method!.expYear],
        ['mastercard', '4444', 12, 2035],
      );

      // charge-vaulted: off-session, the fee of this payment in its entry; the same Idempotency-Key again is the same charge.
      const charge = () =>
        w.vendor.api(`/v1/charge-vaulted/${t.id}`, {
          environment: 'production',
          body: { prices: [{ currency: 'USD', value: 12 }] },
          headers: { 'idempotency-key': 'vault-1' },
        });
      const first = await charge();
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.status ?? 'SUCCESS', 'SUCCESS');
      const second = await charge();
      assert.deepEqual(second.json, first.json);
      const after = await read(t.id);
      const payments = after.entries.filter((e: { type: string }) => e.type === 'VAULTED_PAYMENT');
      assert.equal(payments.length, 1);
      const made = (await intentsAt()).filter((i) => i.amount === 1200 && i.status === 'succeeded');
      assert.equal(made.length, 1, 'one PaymentIntent at Stripe');
    });

    test('charge-vaulted of a card whose bank asks for authentication: declined, and the held PaymentIntent cancelled at Stripe (no page would ask the customer)', async () => {
      const p = await product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const run = await w.checkout(p.id, {
        email: 'held@example.com',
        card: '4000002760003184',
        authenticate: 'complete',
      });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      const charge = await w.vendor.api(`/v1/charge-vaulted/${id}`, {
        environment: 'production',
        body: { prices: [{ currency: 'USD', value: 31 }] },
        headers: { 'idempotency-key': 'held-1' },
      });
      assert.equal(charge.status, 200, charge.text);
      assert.equal(charge.json.status, 'FAILED');
      assert.match(charge.json.message, /bank asks the customer to confirm/);
      const held = (await intentsAt()).filter((i) => i.amount === 3100);
      assert.equal(held.length, 1, 'one PaymentIntent at Stripe');
      assert.equal(held[0]!.status, 'canceled', 'not left waiting for an authentication nobody will ask for');
      assert.equal((await read(id)).entries.filter((e: { type: string }) => e.type === 'VAULTED_PAYMENT').length, 0);
      assert.equal(
        (await read(id)).transactionStatus,
        'VAULTED_STATUS_ACTIVE',
        'a temporary decline: the card stays usable',
      );
    });

    test('subscription without a trial: paid now with the card saved; the renewal is an off-session charge booked once', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
      });
      const run = await w.checkout(p.id, { email: 'sub@example.com' });
      assert.equal(run.status, 200, run.html);
      assert.equal(run.session?.mode, 'payment');
      const intent = await w.stripe.paymentIntents.retrieve(run.session!.clientSecret.split('_secret_')[0]!);
      assert.equal(intent.setup_future_usage, 'off_session');
      const t = await read(run.transactionId!);
      await toNextCharge(t.id);
      const report = await w.app.services.billing.runDue();
      assert.equal(report.renewed, 1, JSON.stringify(report));
      await w.app.services.billing.runDue();
      const renewed = await read(t.id);
      const entries = renewed.entries.filter((e: { type: string }) => e.type === 'SUBSCRIPTION_PAYMENT');
      assert.equal(entries.length, 2);
      await w.settleEvents();
      assert.equal((await read(t.id)).entries.length, 2, 'events of the renewal add nothing');
    });

    test('subscription with a trial: the card is saved with a SetupIntent, and the first charge after the trial is off-session', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        trialDays: 7,
        prices: [{ currency: 'USD', value: 15 }],
      });
      const run = await w.checkout(p.id, { email: 'trial@example.com' });
      assert.equal(run.status, 200, run.html);
      assert.equal(run.session?.mode, 'setup');
      assert.match(run.html, /free trial has started/);
      const t = await read(run.transactionId!);
      assert.equal(t.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL');
      assert.equal(t.entries.length, 0);
      await toNextCharge(t.id);
      await w.app.services.billing.runDue();
      const paid = await read(t.id);
      assert.equal(paid.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(paid.entries.length, 1);
    });

    test('a decline at checkout is shown in the browser; another card in the same session pays once', async () => {
      const p = await product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
      const run = await w.checkout(p.id, { email: 'declined@example.com', card: '4000000000000002' });
      assert.match(run.declined ?? '', /declined/i);
      const paid = await run.retry('4242424242424242');
      assert.equal(paid.status, 200, paid.html);
      const t = await read(paid.transactionId!);
      assert.equal(t.entries.length, 1);
      // The confirmation page asked again: still one payment.
      const again = await fetch(`${w.app.url}/payment/product/${run.session!.confirmUrl}`);
      assert.equal(again.status, 200);
      assert.equal(
        (await w.vendor.api('/v1/transactions/declined%40example.com', { environment: 'production' })).json.length,
        1,
      );
    });

    test('3-D Secure at checkout: the payment completes after the challenge; a failed challenge pays nothing', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 20 }],
      });
      const failed = await w.checkout(p.id, {
        email: 'threeds-fail@example.com',
        card: '4000002500003155',
        authenticate: 'fail',
      });
      assert.ok(failed.declined);
      const run = await w.checkout(p.id, { email: 'threeds@example.com', card: '4000002500003155' });
      assert.equal(run.status, 200, run.html);
      const t = await read(run.transactionId!);
      assert.equal(t.entries.length, 1);
      // Set up with authentication, later charges need none.
      await toNextCharge(t.id);
      await w.app.services.billing.runDue();
      assert.equal((await read(t.id)).entries.length, 2);
      assert.deepEqual(
        (await w.vendor.api('/v1/transactions/threeds-fail%40example.com', { environment: 'production' })).json,
        [],
      );
    });

    test('a renewal declined off-session goes through dunning and ends the subscription, charging nothing', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        trialDays: 3,
        prices: [{ currency: 'USD', value: 9 }],
      });
      const run = await w.checkout(p.id, { email: 'dunning@example.com', card: '4000000000000341' });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      for (let i = 0; i < 6; i++) {
        if (!(await nextCharge(id))) break;
        await toNextCharge(id);
        await w.app.services.billing.runDue();
      }
      const ended = await read(id);
      assert.equal(ended.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(ended.whoCanceled, 'NEXT_CHARGE_FAILED');
      assert.equal(ended.entries.length, 0);
    });

    test('a renewal whose answer was lost, asked again after Stripe forgot its idempotency key, is found and not charged again', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 11 }],
      });
      const run = await w.checkout(p.id, { email: 'forgotten@example.com' });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      await toNextCharge(id);
      // Every answer lost (the SDK itself sends a request again once, under the same key, when its connection closed).
      w.standin.faults.add({ method: 'POST', path: /^\/v1\/payment_intents$/, mode: 'drop-response' });
      // One batch: with no wait before an unknown is asked again, a second batch would ask at once.
      const lost = await w.app.services.billing.runDue({ maxBatches: 1 });
      w.standin.faults.clear();
      assert.ok(lost.unknown >= 1, JSON.stringify(lost));
      assert.equal((await w.app.services.store.chargeAttempts.latestFor(id, 'RENEWAL'))?.status, 'UNKNOWN');
      // The worker was down for two days: Stripe keeps idempotency keys for 24 hours.
      clock.advance(2 * DAY);
      await w.app.services.billing.runDue();
      const attempt = await w.app.services.store.chargeAttempts.latestFor(id, 'RENEWAL');
      assert.equal(attempt?.status, 'SUCCEEDED');
      const charged = (await intentsAt()).filter(
        (i) => i.metadata.opentill_attempt === attempt!.id && i.status === 'succeeded',
      );
      assert.equal(charged.length, 1, 'one charge at Stripe');
      assert.equal((await read(id)).entries.length, 2);
    });

    test('a renewal whose answer was lost, then cancelled before billing asked again, is settled by the reconciler and booked once', async () => {
      const p = await product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 13 }],
      });
      const run = await w.checkout(p.id, { email: 'orphan@example.com' });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      await toNextCharge(id);
      w.standin.faults.add({ method: 'POST', path: /^\/v1\/payment_intents$/, mode: 'drop-response' });
      await w.app.services.billing.runDue({ maxBatches: 1 });
      w.standin.faults.clear();
      assert.equal((await w.app.services.store.chargeAttempts.latestFor(id, 'RENEWAL'))?.status, 'UNKNOWN');
      const cancelled = await w.vendor.api(`/v1/cancel-subscription/${id}`, {
        method: 'POST',
        environment: 'production',
      });
      assert.equal(cancelled.status, 200, cancelled.text);
      clock.advance(5 * 60_000);
      await w.app.services.reconciler.run();
      await w.app.services.reconciler.run();
      await w.app.services.billing.runDue();
      const attempt = await w.app.services.store.chargeAttempts.latestFor(id, 'RENEWAL');
      assert.equal(attempt?.status, 'SUCCEEDED');
      const t = await read(id);
      assert.equal(
        t.transactionStatus,
        'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
        'it runs to the end of the period the payment paid for',
      );
      assert.deepEqual(
        t.entries.map((e: { type: string }) => e.type),
        ['SUBSCRIPTION_PAYMENT', 'SUBSCRIPTION_PAYMENT'],
        'the money that moved is in the ledger, once',
      );
    });

    test('a session the customer leaves unfinished is cancelled at Stripe after an hour and can never be paid', async () => {
      const p = await product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] });
      const page = await fetch(`${w.app.url}/payment/product/${p.id}`);
      const form = hiddenFields(await page.text());
      const started = await fetch(`${w.app.url}/payment/product/${p.id}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form, email: 'gone@example.com' }),
      });
      const session = (await started.json()) as { clientSecret: string };
      clock.advance(2 * 3600_000);
      const report = await w.app.services.reconciler.run();
      assert.ok(report.voided >= 1, JSON.stringify(report));
      const intent = await w.stripe.paymentIntents.retrieve(session.clientSecret.split('_secret_')[0]!);
      assert.equal(intent.status, 'canceled');
      clock.advance(DAY);
    });
  });
}
