import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ProcessorEvent } from '../../src/domain/payments/gateway.ts';
import { REFUSED_TRIES, retryDelayMs } from '../../src/domain/processor/processor-events.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { processorWebhooks, scriptedProcessor } from '../helpers/scripted-processor.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * A dispute of a payment that was already refunded, in part or in full (docs/decisions.md §6a). Part
 * refunded (through the API, at the processor, or both) and then disputed for the rest: the dispute is
 * a CHARGEBACK of the rest, the payment is taken back in full, and a subscription is ended by the
 * platform. A dispute of more than is left (the processor reports one after a full refund, or of the
 * whole payment after a part came back) books nothing: no entry beyond the payment, no status or
 * whoCanceled changed, nothing new in the vendor's feed; the event is tried again for a while (a
 * failed refund may yet make room) and then kept with its refusal. Stripe's own dispute amounts, through
 * its stand-in, are in test/stripe/reversals-in-any-order.test.ts.
 */
for (const kind of await storeKinds()) {
  describe(`a dispute after a refund (${kind})`, () => {
    const clock = fixedClock(new Date('2031-08-01T12:00:00.000Z'));
    const processor = scriptedProcessor(() => clock.now());
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, gateways: { sandbox: processor.gateway } }, (app, vendor) => {
      t = app;
      v = vendor;
      processor.use(sandboxGateway(app.services.database.kysely, () => clock.now()));
    });
    const webhooks = processorWebhooks(
      () => t.url,
      () => clock.now(),
      `evt_after_refund_${kind}`,
    );
    const tick = (ms = 1000) => clock.advance(ms);
    let serial = 0;
    const ref = (what: string) => `${what}_after_refund_${kind}_${++serial}`;

    async function bought(type: 'ONETIME' | 'SUBSCRIPTION', email: string) {
      tick();
      const product = await v.product({
        type,
        ...(type === 'SUBSCRIPTION' ? { chargeFrequency: 'MONTHLY' } : {}),
        prices: [{ currency: 'USD', value: 40 }],
      } as never);
      const id = await v.buy(product.id, { email });
      const attempt = (await t.services.store.chargeAttempts.latestFor(id, 'PURCHASE'))!;
      const [payment] = await t.services.store.entries.listForTransaction(id);
      return { id, email, attempt, payment: payment! };
    }
    type Bought = Awaited<ReturnType<typeof bought>>;
    const dispute = (p: Bought, reference: string, amountMinor: number): ProcessorEvent => ({
      kind: 'dispute',
      paymentReference: p.payment.externalId!,
      attemptId: p.attempt.id,
      disputeReference: reference,
      amountMinor,
      currency: 'USD',
      outcome: 'open',
    });
    const refundAtProcessor = (p: Bought, reference: string, amountMinor: number): ProcessorEvent => ({
      kind: 'refunds',
      paymentReference: p.payment.externalId!,
      attemptId: p.attempt.id,
      refunds: [{ reference, amountMinor, currency: 'USD', refundAttemptId: null, failed: false }],
    });
    async function refundThroughApi(p: Bought, amount?: number) {
      const res = await v.api(`/v1/refund-transaction/${p.id}`, {
        method: 'POST',
        body: amount === undefined ? {} : { amount },
      });
      assert.equal(res.status, 200, res.text);
    }
    const ledger = async (p: Bought) =>
      ((await v.api(`/v1/transaction/${p.id}`)).json.entries as { type: string; amountTotal: string }[]).map((e) => [
        e.type,
        e.amountTotal,
      ]);
    const listed = async (p: Bought) =>
      ((await v.api(`/v1/transactions/${encodeURIComponent(p.email)}`)).json as any[]).find((x) => x.id === p.id);
    const inFeed = async (p: Bought) =>
      ((await v.api('/v1/changed-transactions')).json as { id: string }[]).some((x) => x.id === p.id);
    const markSeen = async (p: Bought) => {
      await v.api('/v1/changed-transactions');
      assert.equal((await v.api(`/v1/changed-transactions/${p.id}`, { method: 'POST' })).status, 200);
    };
    const stored = (eventId: string) =>
      t.services.database.kysely
        .selectFrom('processor_events')
        .selectAll()
        .where('id', '=', `stripe:sandbox:${eventId}`)
        .executeTakeFirstOrThrow();
    const runDue = () => t.services.processorEvents.runDue();

    test('a subscription refunded 10 through the API and 5 at the processor, then disputed for the 25 left: a CHARGEBACK of 25, REFUNDED, ended by the platform', async () => {
      const p = await bought('SUBSCRIPTION', 'api-then-dispute@example.com');
      await refundThroughApi(p, 10);
      tick();
      await webhooks.deliver(refundAtProcessor(p, ref('re'), 500));
      assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      let tx = await listed(p);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE', 'parts refunded: still running');
      assert.notEqual(tx.nextCharge, null);
      await markSeen(p);

      tick();
      await webhooks.deliver(dispute(p, ref('dp'), 2500));
      assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      assert.deepEqual(await ledger(p), [
        ['SUBSCRIPTION_PAYMENT', '40.00'],
        ['SUBSCRIPTION_REFUND', '-10.00'],
        ['SUBSCRIPTION_REFUND', '-5.00'],
        ['CHARGEBACK', '-25.00'],
      ]);
      tx = await listed(p);
      assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED', 'all of the payment is taken back');
      assert.equal(tx.whoCanceled, 'TRANSACTION_CLOUD_ADMIN');
      assert.equal(tx.nextCharge, null, 'never charged again');
      assert.ok(await inFeed(p));
      const entries = await t.services.store.entries.listForTransaction(p.id);
      for (const field of ['amountTotalMinor', 'taxMinor', 'netMinor', 'incomeMinor', 'transactionFeeMinor'] as const)
        assert.equal(
          entries.reduce((sum, e) => sum + e[field], 0),
          0,
          `${field} nets to zero`,
        );
      const again = await v.api(`/v1/refund-transaction/${p.id}`, { method: 'POST', body: { amount: 1 } });
      assert.equal(again.status, 400, 'nothing is left to refund');
    });

    test('a one-time purchase refunded 15 through the API, then disputed for the 25 left: a CHARGEBACK of 25, REFUNDED, nobody cancelled anything', async () => {
      const p = await bought('ONETIME', 'onetime-part-then-dispute@example.com');
      await refundThroughApi(p, 15);
      assert.equal((await listed(p)).transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      tick();
      await webhooks.deliver(dispute(p, ref('dp'), 2500));
      assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      assert.deepEqual(await ledger(p), [
        ['ONETIME_PAYMENT', '40.00'],
        ['ONETIME_PAYMENT_REFUND', '-15.00'],
        ['CHARGEBACK', '-25.00'],
      ]);
      const tx = await listed(p);
      assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(tx.whoCanceled, null);
    });

    /**
     * Delivers a dispute that does not fit what is left of the payment and runs the worker through all
     * its tries: refused each time, then kept (processed) with its refusal. Nothing in the ledger, the
     * transaction or the feed changes.
     */
    async function refusedThroughout(p: Bought, amountMinor: number) {
      const before = {
        ledger: await ledger(p),
        tx: await listed(p),
        row: await t.services.store.transactions.find(v.scope(), p.id),
      };
      await markSeen(p);
      tick();
      const eventId = await webhooks.deliver(dispute(p, ref('dp'), amountMinor));
      for (let tries = 1; tries <= REFUSED_TRIES; tries++) {
        assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 1 }, `try ${tries}`);
        const row = await stored(eventId);
        assert.match(row.last_error ?? '', /is left/, 'the refusal is kept with the event');
        assert.equal(
          row.processed_at === null,
          tries < REFUSED_TRIES,
          `try ${tries}: ${tries < REFUSED_TRIES ? 'tried again later' : 'set aside'}`,
        );
        assert.deepEqual(await ledger(p), before.ledger, 'nothing booked beyond the payment');
        tick(retryDelayMs(tries));
      }
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 }, 'kept, not tried again');
      assert.deepEqual(await listed(p), before.tx, 'status, whoCanceled and next charge as they were');
      const row = await t.services.store.transactions.find(v.scope(), p.id);
      assert.equal(row?.changedAt, before.row?.changedAt);
      assert.equal(await inFeed(p), false, 'nothing new for the vendor');
    }

    test('fully refunded through the API, then the processor reports a dispute of the whole payment: refused, nothing booked, no status or whoCanceled change, kept with its refusal', async () => {
      const p = await bought('SUBSCRIPTION', 'refunded-then-disputed@example.com');
      await refundThroughApi(p);
      const tx = await listed(p);
      assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(tx.whoCanceled, null);
      await refusedThroughout(p, p.payment.amountTotalMinor);
      assert.deepEqual(await ledger(p), [
        ['SUBSCRIPTION_PAYMENT', '40.00'],
        ['SUBSCRIPTION_REFUND', '-40.00'],
      ]);
    });

    test('a dispute of part of what is left (the processor disputes 15 of 40): a CHARGEBACK of 15; the subscription ends all the same, a one-time purchase stays paid', async () => {
      for (const type of ['SUBSCRIPTION', 'ONETIME'] as const) {
        const p = await bought(type, `part-disputed-${type.toLowerCase()}@example.com`);
        tick();
        await webhooks.deliver(dispute(p, ref('dp'), 1500));
        assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
        assert.deepEqual((await ledger(p)).at(-1), ['CHARGEBACK', '-15.00']);
        const tx = await listed(p);
        if (type === 'SUBSCRIPTION') {
          // A customer who disputes is not charged again, whatever part the dispute is of.
          assert.deepEqual(
            [tx.transactionStatus, tx.whoCanceled, tx.nextCharge],
            ['SUBSCRIPTION_STATUS_CANCELLED', 'TRANSACTION_CLOUD_ADMIN', null],
          );
        } else assert.deepEqual([tx.transactionStatus, tx.whoCanceled], ['ONE_TIME_PAYMENT_STATUS_PAID', null]);
      }
    });

    test('refunded 10 at the processor, then a dispute of all 40 (more than is left): refused, the subscription keeps running, uncancelled', async () => {
      const p = await bought('SUBSCRIPTION', 'part-then-too-large@example.com');
      tick();
      await webhooks.deliver(refundAtProcessor(p, ref('re'), 1000));
      assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      await refusedThroughout(p, p.payment.amountTotalMinor);
      const tx = await listed(p);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(tx.whoCanceled, null);
      assert.notEqual(tx.nextCharge, null);
      assert.deepEqual(await ledger(p), [
        ['SUBSCRIPTION_PAYMENT', '40.00'],
        ['SUBSCRIPTION_REFUND', '-10.00'],
      ]);
    });
  });
}
