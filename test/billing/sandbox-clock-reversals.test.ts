import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ProcessorEvent } from '../../src/domain/payments/gateway.ts';
import type { Environment, LedgerEntry } from '../../src/domain/model.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { processorWebhooks, scriptedProcessor } from '../helpers/scripted-processor.ts';
import { startTestApp, storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Reversals the processor makes (a refund in its dashboard, a dispute opened and won, a refund that
 * failed) for a vendor whose sandbox clock was moved forward (`POST /v1/clock/advance`): every reversal
 * entry, its credit note and the transaction's change are dated by the vendor's sandbox time, as
 * everything else in that sandbox is (docs/decisions.md §15, "Sandbox clock"), and never before the
 * payment they reverse. Production is dated by real time, whoever moved a sandbox clock. The events
 * come in at the webhook endpoints and the worker (`runWorkerOnce`, which loads every moved clock
 * first) acts on them.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`reversals at the processor, by the sandbox clock (${kind})`, () => {
    const clock = fixedClock(new Date('2031-05-04T10:00:00.000Z'));
    const processors = {
      sandbox: scriptedProcessor(() => clock.now()),
      production: scriptedProcessor(() => clock.now()),
    };
    let t: TestApp;
    useTestApp(
      kind,
      { clock, gateways: { sandbox: processors.sandbox.gateway, production: processors.production.gateway } },
      (app) => {
        t = app;
        for (const p of Object.values(processors))
          p.use(sandboxGateway(app.services.database.kysely, () => clock.now()));
      },
    );
    const webhooks = processorWebhooks(
      () => t.url,
      () => clock.now(),
      `evt_clock_${kind}`,
    );
    const tick = (ms = 1000) => clock.advance(ms);
    let serial = 0;
    const ref = (what: string) => `${what}_clock_${kind}_${++serial}`;

    /** Moves the vendor's sandbox clock forward through the API; answers the sandbox's time. */
    async function move(v: TestVendor, days: number): Promise<string> {
      const res = await v.api('/v1/clock/advance', { body: { seconds: days * 86_400 } });
      assert.equal(res.status, 200, res.text);
      return res.json.now;
    }
    async function sandboxNow(v: TestVendor): Promise<string> {
      const res = await v.api('/v1/clock');
      assert.equal(res.status, 200, res.text);
      return res.json.now;
    }
    /** The worker's run, in which the processor's events are acted on: every one of them. */
    async function work() {
      const report = await runWorkerOnce(t.services);
      assert.equal(report.events.failed + report.events.refused, 0, JSON.stringify(report.events));
      return report;
    }
    async function bought(v: TestVendor, type: 'ONETIME' | 'SUBSCRIPTION', environment: Environment = 'sandbox') {
      const product = await v.product(
        {
          type,
          ...(type === 'SUBSCRIPTION' ? { chargeFrequency: 'MONTHLY' } : {}),
          prices: [{ currency: 'USD', value: 40 }],
        },
        environment,
      );
      const id = await v.buy(product.id, {}, environment);
      const attempt = (await t.services.store.chargeAttempts.latestFor(id, 'PURCHASE'))!;
      const payment = (await entriesOf(id))[0]!;
      assert.equal(payment.externalId, processors[environment].script.charged.get(attempt.id));
      return { id, attempt, payment, scope: v.scope(environment) };
    }
    const entriesOf = (id: string) => t.services.store.entries.listForTransaction(id);
    const refundOf = (
      p: Awaited<ReturnType<typeof bought>>,
      reference: string,
      amountMinor: number,
      failed = false,
    ): ProcessorEvent => ({
      kind: 'refunds',
      paymentReference: p.payment.externalId!,
      attemptId: p.attempt.id,
      refunds: [{ reference, amountMinor, currency: 'USD', refundAttemptId: null, failed }],
    });
    const disputeOf = (
      p: Awaited<ReturnType<typeof bought>>,
      reference: string,
      outcome: 'open' | 'won',
      amountMinor = p.payment.amountTotalMinor,
    ): ProcessorEvent => ({
      kind: 'dispute',
      paymentReference: p.payment.externalId!,
      attemptId: p.attempt.id,
      disputeReference: reference,
      amountMinor,
      currency: 'USD',
      outcome,
    });
    /** The entry booked under the processor's id, dated `at`; its change (the feed's) dated the same. */
    async function bookedAt(
      p: Awaited<ReturnType<typeof bought>>,
      externalId: string,
      at: string,
    ): Promise<LedgerEntry> {
      const entry = (await entriesOf(p.id)).find((e) => e.externalId === externalId);
      assert.ok(entry, `${externalId} is booked`);
      assert.equal(entry.createdAt, at, `${entry.type} ${externalId} is dated by the clock of its environment`);
      assert.ok(Date.parse(entry.createdAt) > Date.parse(p.payment.createdAt), 'after the payment it reverses');
      assert.equal(
        (await t.services.store.transactions.find(p.scope, p.id))?.changedAt,
        at,
        "the change the vendor's feed shows, at the same time",
      );
      return entry;
    }

    test('a refund in the dashboard, in two parts, after the vendor moved its sandbox clock 40 days: entries, credit notes and changes are dated by the sandbox', async () => {
      const v = await t.newVendor();
      const p = await bought(v, 'ONETIME');
      assert.equal(p.payment.createdAt, clock.now().toISOString(), 'paid before the clock moved: at real time');
      const moved = await move(v, 40);
      assert.equal(moved, new Date(clock.now().getTime() + 40 * DAY).toISOString());
      tick(60_000);

      const first = ref('re');
      await webhooks.deliver(refundOf(p, first, 1500));
      await work();
      const part = await bookedAt(p, first, await sandboxNow(v));
      assert.equal(part.amountTotalMinor, -1500);
      const note = await t.services.invoices.find('sandbox', part.hashId);
      assert.equal(note.kind, 'CREDIT_NOTE');
      assert.equal(note.issuedAt, part.createdAt, 'the credit note is dated by the sandbox too');
      assert.equal((await fetch(`${t.url}/sandbox/invoice/${part.hashId}`)).status, 200);

      tick(3600_000);
      const rest = ref('re');
      await webhooks.deliver(refundOf(p, rest, 2500));
      await work();
      const last = await bookedAt(p, rest, await sandboxNow(v));
      assert.ok(last.createdAt > part.createdAt);
      assert.equal((await t.services.invoices.find('sandbox', last.hashId)).issuedAt, last.createdAt);
      const listed = await v.api(`/v1/transaction/${p.id}`);
      assert.equal(listed.json.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.deepEqual(
        listed.json.entries.map((e: { type: string; createDate: string }) => [e.type, e.createDate]),
        [
          ['ONETIME_PAYMENT', p.payment.createdAt],
          ['ONETIME_PAYMENT_REFUND', part.createdAt],
          ['ONETIME_PAYMENT_REFUND', last.createdAt],
        ],
      );
    });

    test('a dispute opened and won for a subscription bought in a sandbox running 90 days ahead: both chargebacks and the end by the platform are dated by the sandbox', async () => {
      const v = await t.newVendor();
      await move(v, 90);
      tick();
      const p = await bought(v, 'SUBSCRIPTION');
      assert.equal(p.payment.createdAt, await sandboxNow(v), "bought at the sandbox's time");
      tick(120_000);
      const dispute = ref('dp');
      await webhooks.deliver(disputeOf(p, dispute, 'open'));
      await work();
      const chargeback = await bookedAt(p, dispute, await sandboxNow(v));
      assert.equal(chargeback.type, 'CHARGEBACK');
      const ended = (await t.services.store.transactions.find(p.scope, p.id))!;
      assert.equal(ended.status, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(ended.whoCanceled, 'TRANSACTION_CLOUD_ADMIN');

      tick(7 * DAY);
      await webhooks.deliver(disputeOf(p, dispute, 'won'));
      await work();
      const back = await bookedAt(p, `${dispute}:won`, await sandboxNow(v));
      assert.equal(back.reversesEntryId, chargeback.id);
      assert.ok(back.createdAt > chargeback.createdAt);
    });

    test('a refund that failed after it was booked, in a sandbox running ahead: put back at the sandbox time by a worker in another process, paid again', async () => {
      const v = await t.newVendor();
      const p = await bought(v, 'ONETIME');
      await move(v, 30);
      tick();
      const refund = ref('re');
      await webhooks.deliver(refundOf(p, refund, p.payment.amountTotalMinor));
      await work();
      await bookedAt(p, refund, await sandboxNow(v));
      assert.equal((await t.services.store.transactions.find(p.scope, p.id))?.status, 'TRANSACTION_STATUS_REFUNDED');

      // Acted on by a worker in a process of its own (`opentill worker`), which loads moved clocks from the store.
      tick(2 * DAY);
      await webhooks.deliver(refundOf(p, refund, p.payment.amountTotalMinor, true));
      const worker = await startTestApp(kind, {
        clock,
        database: t.services.database,
        gateways: { sandbox: processors.sandbox.gateway },
      });
      try {
        assert.deepEqual((await runWorkerOnce(worker.services)).events, {
          processed: 1,
          failed: 0,
          ignored: 0,
          refused: 0,
        });
      } finally {
        await worker.close();
      }
      const putBack = await bookedAt(p, `${refund}:failed`, await sandboxNow(v));
      assert.equal(putBack.amountTotalMinor, p.payment.amountTotalMinor);
      assert.equal((await t.services.store.transactions.find(p.scope, p.id))?.status, 'ONE_TIME_PAYMENT_STATUS_PAID');
    });

    test('a reversal heard in the very millisecond of its payment, in a sandbox running ahead, still comes after it; so does the undoing', async () => {
      const v = await t.newVendor();
      await move(v, 10);
      const p = await bought(v, 'ONETIME');
      const dispute = ref('dp');
      await webhooks.deliver(disputeOf(p, dispute, 'open'));
      await webhooks.deliver(disputeOf(p, dispute, 'won'));
      await work();
      const [payment, chargeback, back] = await entriesOf(p.id);
      assert.deepEqual(
        [payment, chargeback, back].map((e) => [e!.type, e!.amountTotalMinor, e!.createdAt]),
        [
          ['ONETIME_PAYMENT', 4000, p.payment.createdAt],
          ['CHARGEBACK', -4000, new Date(Date.parse(p.payment.createdAt) + 1).toISOString()],
          ['CHARGEBACK', 4000, new Date(Date.parse(p.payment.createdAt) + 2).toISOString()],
        ],
      );
    });

    test('a charge of a saved card in a sandbox running 30 days ahead is dated by the sandbox: its payment, its invoice and the last charge', async () => {
      const v = await t.newVendor();
      await move(v, 30);
      tick();
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] } as never);
      const id = await v.buy(product.id, { email: 'saved-card@example.com' });
      tick(60_000);
      const charged = await v.api(`/v1/charge-vaulted/${id}`, { body: { prices: [{ currency: 'USD', value: 12 }] } });
      assert.equal(charged.status, 200, charged.text);
      const at = await sandboxNow(v);
      const [payment] = (await entriesOf(id)).filter((e) => e.type === 'VAULTED_PAYMENT');
      assert.equal(payment!.createdAt, at);
      assert.equal((await t.services.invoices.find('sandbox', payment!.hashId)).issuedAt, at);
      assert.equal((await t.services.store.transactions.find(v.scope(), id))!.lastCharge, at);
    });

    test("production is dated by real time, whoever moved a sandbox clock: the vendor's own and another vendor's sandbox at real time", async () => {
      const v = await t.newVendor();
      const other = await t.newVendor('Other Vendor');
      await move(v, 200);
      tick();
      const production = await bought(v, 'SUBSCRIPTION', 'production');
      assert.equal(production.payment.createdAt, clock.now().toISOString());
      const elsewhere = await bought(other, 'ONETIME');
      assert.equal(elsewhere.payment.createdAt, clock.now().toISOString());
      tick(5 * 60_000);
      const refund = ref('re');
      await webhooks.deliver(refundOf(production, refund, 1000), { path: '/webhooks/stripe' });
      const otherRefund = ref('re');
      await webhooks.deliver(refundOf(elsewhere, otherRefund, 1000));
      await work();
      const refundedAt = clock.now().toISOString();
      assert.ok(refundedAt < (await sandboxNow(v)));
      const refunded = await bookedAt(production, refund, refundedAt);
      assert.equal((await t.services.invoices.find('production', refunded.hashId)).issuedAt, refundedAt);
      await bookedAt(elsewhere, otherRefund, refundedAt);

      tick(5 * 60_000);
      const dispute = ref('dp');
      await webhooks.deliver(disputeOf(production, dispute, 'open', 3000), { path: '/webhooks/stripe' });
      await work();
      await bookedAt(production, dispute, clock.now().toISOString());
      assert.deepEqual(
        (await entriesOf(production.id)).map((e) => e.type),
        ['SUBSCRIPTION_PAYMENT', 'SUBSCRIPTION_REFUND', 'CHARGEBACK'],
      );
    });
  });
}
