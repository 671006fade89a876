import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { STRIPE_EVENTS } from '../../src/gateways/stripe-setup.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';

/**
 * Reversals made at Stripe, in parts and in any order (issue 32), through the Stripe stand-in and
 * opentill's webhook endpoint: several partial dashboard refunds, a refund then a dispute of the rest, a
 * dispute then a refund asked through the API (refused: the money is gone), a dispute won then refunded,
 * a refund that fails. Every event is delivered twice more, newest first, at the end: the ledger books
 * exactly what Stripe holds, once.
 */
type Entry = { type: string; amountTotal: string };

for (const kind of await storeKinds()) {
  describe(`reversals at Stripe, in any order (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, { clock, now: () => clock.now() });
    });
    after(() => w?.close());

    const read = async (id: string) =>
      (await w.vendor.api(`/v1/transaction/${id}`, { environment: 'production' })).json;
    const ledger = async (id: string) => ((await read(id)).entries as Entry[]).map((e) => [e.type, e.amountTotal]);
    const api = (path: string, body?: unknown) =>
      w.vendor.api(path, { method: 'POST', environment: 'production', ...(body ? { body } : {}) });
    const paymentOf = async (transactionId: string) => {
      const attempt = await w.app.services.store.chargeAttempts.latestFor(transactionId, 'PURCHASE');
      return (await w.stripe.paymentIntents.list({ limit: 100 })).data.find(
        (i) => i.metadata.opentill_attempt === attempt!.id,
      )!;
    };
    /** Every event Stripe made so far, delivered twice more, the newest first (as retries and replays come). */
    const replayBackwards = async () => {
      const events = w.standin.events().filter((e) => (STRIPE_EVENTS as readonly string[]).includes(e.type));
      for (const event of events.reverse()) await w.standin.deliver(event.id, { times: 2 });
      await w.app.services.processorEvents.runDue();
      // Every event is acted on, none left failing: two events about one thing (a dispute's closed and
      // funds_reinstated) book it once and both end processed.
      const open = await w.app.services.database.kysely
        .selectFrom('processor_events')
        .select(['type', 'last_error'])
        .where('processed_at', 'is', null)
        .execute();
      assert.deepEqual(open, []);
    };
    const later = async () => {
      clock.advance(60_000);
      await w.settleEvents();
    };
    /** What Stripe holds of the payment's refunds and disputes, net: the ledger's reversals must come to the same. */
    const takenBackAtStripe = async (paymentIntent: string) => {
      const refunds = (await w.stripe.refunds.list({ payment_intent: paymentIntent, limit: 100 })).data.filter(
        (r) => r.status !== 'failed',
      );
      const disputes = (await w.stripe.disputes.list({ payment_intent: paymentIntent, limit: 100 })).data.filter(
        (d) => d.status !== 'won',
      );
      return refunds.reduce((sum, r) => sum + r.amount, 0) + disputes.reduce((sum, d) => sum + d.amount, 0);
    };
    const takenBackInLedger = async (id: string) =>
      0 -
      ((await read(id)).entries as Entry[])
        .filter((e) => e.type !== 'ONETIME_PAYMENT' && e.type !== 'SUBSCRIPTION_PAYMENT')
        .reduce((sum, e) => sum + Math.round(Number(e.amountTotal) * 100), 0);
    const buy = async (email: string, type: 'ONETIME' | 'SUBSCRIPTION' = 'ONETIME') => {
      const p = await w.vendor.product(
        {
          type,
          ...(type === 'SUBSCRIPTION' ? { chargeFrequency: 'MONTHLY' } : {}),
          prices: [{ currency: 'USD', value: 40 }],
        },
        'production',
      );
      const run = await w.checkout(p.id, { email });
      assert.equal(run.status, 200, run.html);
      await w.settleEvents();
      return { id: run.transactionId!, paymentIntent: (await paymentOf(run.transactionId!)).id };
    };

    test('40 USD refunded 10 then 30 in the dashboard: two refund entries, REFUNDED only once all of it is back, as Stripe holds it', async () => {
      const { id, paymentIntent } = await buy('ten-then-thirty@example.com');
      await w.standin.refundFromDashboard(paymentIntent, 1000);
      await later();
      assert.equal((await read(id)).transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID', 'a part back: still paid');
      await w.standin.refundFromDashboard(paymentIntent, 3000);
      await later();
      await replayBackwards();
      assert.deepEqual(await ledger(id), [
        ['ONETIME_PAYMENT', '40.00'],
        ['ONETIME_PAYMENT_REFUND', '-10.00'],
        ['ONETIME_PAYMENT_REFUND', '-30.00'],
      ]);
      assert.equal((await read(id)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(await takenBackInLedger(id), await takenBackAtStripe(paymentIntent));
      assert.equal((await api(`/v1/refund-transaction/${id}`)).status, 400, 'nothing is left to refund');
    });

    test('a subscription refunded 10 in the dashboard, then disputed for the 30 left: a CHARGEBACK of 30, ended by the platform', async () => {
      const { id, paymentIntent } = await buy('refund-then-dispute@example.com', 'SUBSCRIPTION');
      await w.standin.refundFromDashboard(paymentIntent, 1000);
      await later();
      const dispute = await w.standin.openDispute(paymentIntent);
      assert.equal(dispute.amount, 3000, "Stripe's dispute is of what is left");
      await later();
      await replayBackwards();
      assert.deepEqual(await ledger(id), [
        ['SUBSCRIPTION_PAYMENT', '40.00'],
        ['SUBSCRIPTION_REFUND', '-10.00'],
        ['CHARGEBACK', '-30.00'],
      ]);
      const t = await read(id);
      assert.equal(t.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(t.whoCanceled, 'TRANSACTION_CLOUD_ADMIN');
      assert.equal(await takenBackInLedger(id), await takenBackAtStripe(paymentIntent));
    });

    test('disputed, then a refund asked through the API: refused, the money is already gone; won, then refunded: both booked', async () => {
      const { id, paymentIntent } = await buy('dispute-then-refund@example.com');
      const dispute = await w.standin.openDispute(paymentIntent);
      await later();
      const refused = await api(`/v1/refund-transaction/${id}`, { amount: 5 });
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error, 'INVALID_STATE');
      assert.equal((await read(id)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      await w.standin.closeDispute(dispute.id, 'won');
      await later();
      assert.equal(
        (await read(id)).transactionStatus,
        'TRANSACTION_STATUS_REFUNDED',
        'won: the status stays (DECISIONS.md)',
      );
      const [payment] = (await read(id)).entries as { id: string }[];
      const plain = await api(`/v1/refund-transaction/${id}`, { amount: 15 });
      assert.equal(plain.status, 400, 'a refunded transaction refunds nothing without the payment named');
      const refunded = await api(`/v1/refund-transaction/${id}`, { amount: 15, entryId: payment!.id });
      assert.equal(refunded.status, 200, refunded.text);
      await later();
      await replayBackwards();
      assert.deepEqual(await ledger(id), [
        ['ONETIME_PAYMENT', '40.00'],
        ['CHARGEBACK', '-40.00'],
        ['CHARGEBACK', '40.00'],
        ['ONETIME_PAYMENT_REFUND', '-15.00'],
      ]);
      assert.equal(await takenBackInLedger(id), await takenBackAtStripe(paymentIntent));
    });

    test('heard in the wrong order: a dashboard refund heard before the dispute won that made room for it is refused, tried again, booked once the win is heard', async () => {
      const { id, paymentIntent } = await buy('won-heard-late@example.com');
      const dispute = await w.standin.openDispute(paymentIntent);
      await later();
      const seen = new Set(w.standin.events().map((e) => e.id));
      await w.standin.closeDispute(dispute.id, 'won');
      await w.standin.refundFromDashboard(paymentIntent, 1500);
      const fresh = w.standin
        .events()
        .filter((e) => !seen.has(e.id) && (STRIPE_EVENTS as readonly string[]).includes(e.type));
      const refundEvents = fresh.filter((e) => !e.type.startsWith('charge.dispute'));
      assert.ok(refundEvents.length > 0 && refundEvents.length < fresh.length);
      for (const event of refundEvents) await w.standin.deliver(event.id);
      const first = await w.app.services.processorEvents.runDue();
      assert.ok(first.refused >= 1, `the refund does not fit yet: ${JSON.stringify(first)}`);
      assert.deepEqual(await ledger(id), [
        ['ONETIME_PAYMENT', '40.00'],
        ['CHARGEBACK', '-40.00'],
      ]);
      // Stripe dates its events to the second: the win and the refund carry the same one here, so a run
      // may try the refund before the win once more; the retry after that finds room.
      await later();
      await later();
      assert.deepEqual(await ledger(id), [
        ['ONETIME_PAYMENT', '40.00'],
        ['CHARGEBACK', '-40.00'],
        ['CHARGEBACK', '40.00'],
        ['ONETIME_PAYMENT_REFUND', '-15.00'],
      ]);
      await replayBackwards();
      assert.equal((await ledger(id)).length, 4);
      assert.equal(await takenBackInLedger(id), await takenBackAtStripe(paymentIntent));
      assert.equal(
        (await read(id)).transactionStatus,
        'TRANSACTION_STATUS_REFUNDED',
        'a won dispute leaves the status as it is',
      );
    });

    test('a refund that fails after it was booked is put back, once: what was taken back is the vendor again', async () => {
      const { id, paymentIntent } = await buy('refund-fails@example.com');
      const refunded = await api(`/v1/refund-transaction/${id}`, { amount: 25 });
      assert.equal(refunded.status, 200, refunded.text);
      await later();
      await w.standin.failRefund(refunded.json[0].externalId);
      await later();
      await replayBackwards();
      assert.deepEqual(await ledger(id), [
        ['ONETIME_PAYMENT', '40.00'],
        ['ONETIME_PAYMENT_REFUND', '-25.00'],
        ['ONETIME_PAYMENT_REFUND', '25.00'],
      ]);
      assert.equal(await takenBackInLedger(id), await takenBackAtStripe(paymentIntent));
      assert.equal(
        (await read(id)).transactionStatus,
        'ONE_TIME_PAYMENT_STATUS_PAID',
        "the money is the vendor's again",
      );
      const again = await api(`/v1/refund-transaction/${id}`, { amount: 40 });
      assert.equal(again.status, 200, 'all 40 may be refunded again');
    });

    test('a full refund that fails: the purchase is paid again, and a refund without a body refunds it again', async () => {
      const { id, paymentIntent } = await buy('full-refund-fails@example.com');
      const refunded = await api(`/v1/refund-transaction/${id}`);
      assert.equal(refunded.status, 200, refunded.text);
      assert.equal((await read(id)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      await w.standin.failRefund(refunded.json[0].externalId);
      await later();
      assert.equal((await read(id)).transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      const again = await api(`/v1/refund-transaction/${id}`);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json[0].amountTotal, 40);
      await later();
      await replayBackwards();
      assert.equal(await takenBackInLedger(id), await takenBackAtStripe(paymentIntent));
      assert.equal((await read(id)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
    });

    test('a dashboard refund that fails before opentill heard of it books nothing', async () => {
      const { id, paymentIntent } = await buy('fails-unseen@example.com');
      const refund = await w.standin.refundFromDashboard(paymentIntent, 700);
      await w.standin.failRefund(refund.id);
      await later();
      await replayBackwards();
      assert.deepEqual(await ledger(id), [['ONETIME_PAYMENT', '40.00']]);
      assert.equal(await takenBackAtStripe(paymentIntent), 0);
    });
  });
}

/** Stripe's balance in USD, the payment in EUR: what its fee is in the ledger, and what a refund of part of it takes of that fee. */
for (const kind of await storeKinds()) {
  describe(`fees when Stripe settles in another currency (${kind})`, () => {
    const RATE = 1.08;
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, { standin: { balance: { currency: 'usd', exchangeRate: RATE } } });
    });
    after(() => w?.close());

    /** A EUR purchase in production, with the fee Stripe charged for it in its balance currency. */
    async function paidInEuro(email: string) {
      const p = await w.vendor.product(
        {
          type: 'ONETIME',
          prices: [
            { currency: 'USD', value: 50 },
            { currency: 'EUR', value: 40 },
          ],
        },
        'production',
      );
      const run = await w.checkout(p.id, { email, country: 'DE' });
      assert.equal(run.status, 200, run.html);
      await w.settleEvents();
      const [payment] = await w.app.services.store.entries.listForTransaction(run.transactionId!);
      assert.equal(payment!.currency, 'EUR');
      const intent = run.session!.clientSecret.split('_secret_')[0]!;
      const charge = await w.stripe.charges.retrieve(
        (await w.stripe.paymentIntents.retrieve(intent)).latest_charge as string,
        {
          expand: ['balance_transaction'],
        },
      );
      const balance = charge.balance_transaction as { currency: string; fee: number; exchange_rate: number };
      assert.equal(balance.currency, 'usd');
      assert.equal(balance.exchange_rate, RATE);
      return { id: run.transactionId!, payment: payment!, usdFee: balance.fee };
    }

    test(`a EUR payment settled in USD at ${RATE}: its fee is Stripe's USD fee divided by the rate, in EUR`, async () => {
      const { payment, usdFee } = await paidInEuro('eur@example.com');
      assert.equal(payment.transactionFeeMinor, Math.round(usdFee / RATE), 'the USD fee in EUR');
      assert.notEqual(payment.transactionFeeMinor, usdFee);
      assert.equal(payment.incomeMinor, payment.netMinor - payment.transactionFeeMinor);
    });

    test('a quarter of it refunded through the API takes a quarter of that EUR fee, in EUR, not a share of the USD fee or of the fee converted the other way', async () => {
      const { id, payment, usdFee } = await paidInEuro('eur-part@example.com');
      assert.equal(payment.amountTotalMinor, 4760, '40 EUR and 19% VAT');
      const feeInEuro = Math.round(usdFee / RATE);
      const share = (fee: number) => Math.round(fee / 4);
      const refunded = await w.vendor.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        environment: 'production',
        body: { amount: 11.9 },
      });
      assert.equal(refunded.status, 200, refunded.text);
      assert.equal(refunded.json[0].currency, 'EUR');
      assert.equal(refunded.json[0].amountTotal, 11.9);
      assert.equal(
        refunded.json[0].transactionFee,
        share(feeInEuro) / 100,
        "the part's fee, in EUR, as the answer says",
      );
      const refund = (await w.app.services.store.entries.listForTransaction(id)).find(
        (e) => e.type === 'ONETIME_PAYMENT_REFUND',
      )!;
      assert.equal(refund.currency, 'EUR');
      assert.equal(refund.transactionFeeMinor, -share(feeInEuro));
      assert.equal(refund.incomeMinor, -Math.round(payment.incomeMinor / 4));
      for (const wrong of [usdFee, Math.round(usdFee * RATE)])
        assert.notEqual(refund.transactionFeeMinor, -share(wrong), `not a share of ${wrong}`);
    });
  });
}
