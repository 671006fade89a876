import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pendingAttempt } from '../../src/domain/payments/charge-attempts.ts';
import { chargeProtocol } from '../../src/domain/payments/charge-protocol.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ProcessorEvent } from '../../src/domain/payments/gateway.ts';
import type { LedgerEntry } from '../../src/domain/model.ts';
import type { ChargeAttempt } from '../../src/domain/ports.ts';
import {
  processorEventService,
  REFUSED_TRIES,
  retryDelayMs,
  shortError,
} from '../../src/domain/processor/processor-events.ts';
import { reversalService } from '../../src/domain/payments/reversals.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedProcessor, sign, TOLERANCE_S } from '../helpers/scripted-processor.ts';
import { storeKinds, TEST_CARD, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Inbound processor events end to end (DECISIONS.md, "Money safety"; docs/decisions.md §6a, §10b): received over
 * HTTP with a signature over the raw body, stored once, acted on by the worker's `runDue`, and
 * idempotent by the processor's ids. The processor is the edge of the world: a scripted gateway
 * (test/helpers/scripted-processor.ts) signs its events with an HMAC of this test's choosing and says what each event means; its money
 * moves through the real sandbox gateway.
 */
const isOpen = (a: ChargeAttempt | undefined) => a?.status === 'PENDING' || a?.status === 'UNKNOWN';

for (const kind of await storeKinds()) {
  describe(`processor events (${kind})`, () => {
    const clock = fixedClock(new Date('2031-05-04T10:00:00.000Z'));
    const processor = scriptedProcessor(() => clock.now());
    const { script } = processor;
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, gateways: { sandbox: processor.gateway } }, (app, vendor) => {
      t = app;
      v = vendor;
      processor.use(sandboxGateway(app.services.database.kysely, () => clock.now()));
    });

    const tick = (ms = 1000) => clock.advance(ms);
    let serial = 0;
    const eventId = () => `evt_${kind}_${++serial}`;

    /** Delivers an event the way the processor does: a signed JSON body. */
    async function post(body: string, signature: string | undefined, path = '/sandbox/webhooks/stripe') {
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      if (signature !== undefined) headers['stripe-signature'] = signature;
      const res = await fetch(`${t.url}${path}`, { method: 'POST', headers, body });
      return { status: res.status, json: (await res.json()) as any };
    }
    const bodyOf = (id: string, translated: ProcessorEvent, created = clock.now()) =>
      JSON.stringify({
        id,
        type: `test.${translated.kind}`,
        created: Math.floor(created.getTime() / 1000),
        translated,
      });
    async function deliver(translated: ProcessorEvent, options: { id?: string; created?: Date } = {}): Promise<string> {
      const id = options.id ?? eventId();
      const body = bodyOf(id, translated, options.created);
      const res = await post(body, sign(body, clock.now()));
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.deepEqual(res.json, { received: true });
      return id;
    }

    const runDue = () => t.services.processorEvents.runDue();
    const stored = (id: string) =>
      t.services.database.kysely
        .selectFrom('processor_events')
        .selectAll()
        .where('id', '=', `stripe:sandbox:${id}`)
        .executeTakeFirst();
    const storedCount = async () =>
      Number(
        (
          await t.services.database.kysely
            .selectFrom('processor_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const entriesOf = (id: string) => t.services.store.entries.listForTransaction(id);
    const purchaseOf = async (id: string) => (await t.services.store.chargeAttempts.latestFor(id, 'PURCHASE'))!;
    const paymentOf = async (id: string): Promise<LedgerEntry> =>
      (await entriesOf(id)).find((e) => e.type.endsWith('_PAYMENT'))!;
    const read = async (id: string) => {
      const res = await v.api(`/v1/transaction/${id}`);
      assert.equal(res.status, 200, res.text);
      return res.json;
    };
    const listed = async (id: string, email = 'customer@example.com') =>
      ((await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as any[]).find((x) => x.id === id);
    const changed = async (id: string) =>
      ((await v.api('/v1/changed-transactions')).json as any[]).find((x) => x.id === id);
    /** The vendor reads the feed and marks the transaction processed (marking covers what was shown). */
    const markSeen = async (id: string) => {
      await v.api('/v1/changed-transactions');
      assert.equal((await v.api(`/v1/changed-transactions/${id}`, { method: 'POST' })).status, 200);
    };
    /** Runs everything due; every event due must be acted on. */
    async function settleAll() {
      const report = await runDue();
      assert.equal(report.failed, 0, 'no event failed');
      return report;
    }

    async function bought(type: 'ONETIME' | 'SUBSCRIPTION', input: { email?: string; country?: string } = {}) {
      tick();
      const product = await v.product({
        type,
        chargeFrequency: type === 'SUBSCRIPTION' ? 'MONTHLY' : undefined,
        prices: [{ currency: 'USD', value: 20 }],
      } as any);
      const id = await v.buy(product.id, input);
      await markSeen(id);
      const attempt = await purchaseOf(id);
      const payment = await paymentOf(id);
      assert.equal(
        payment.externalId,
        script.charged.get(attempt.id),
        "the payment entry keeps the processor's id of the payment",
      );
      return { id, attempt, payment };
    }

    test('a missing, wrong, stale or re-serialized signature is refused with 400 and stores nothing', async () => {
      tick();
      const before = await storedCount();
      const body = bodyOf(eventId(), { kind: 'ignored', reason: 'test' });
      const cases: [string, string | undefined][] = [
        ['missing', undefined],
        ['wrong secret', sign(body, clock.now(), 'whsec_someone_else')],
        ['stale', sign(body, new Date(clock.now().getTime() - (TOLERANCE_S + 60) * 1000))],
        ['garbage', 'not a signature'],
      ];
      for (const [what, signature] of cases) {
        const res = await post(body, signature);
        assert.equal(res.status, 400, what);
        assert.equal(res.json.error, 'INVALID_INPUT', what);
        assert.equal(typeof res.json.message, 'string', what);
      }
      // The signature is over the bytes as sent: the same JSON with other whitespace is another body.
      const pretty = JSON.stringify(JSON.parse(body), null, 2);
      assert.equal((await post(pretty, sign(body, clock.now()))).status, 400, 're-serialized');
      assert.equal(await storedCount(), before, 'nothing was stored');
      // A body over 512 KiB is not read, however it is signed.
      const huge = JSON.stringify({ id: eventId(), type: 'test.ignored', created: 0, padding: 'x'.repeat(600 * 1024) });
      const tooLarge = await post(huge, sign(huge, clock.now()));
      assert.equal(tooLarge.status, 413);
      assert.equal(tooLarge.json.error, 'BODY_TOO_LARGE');
      assert.match(tooLarge.json.message, /512 KiB/);
      assert.equal(await storedCount(), before);

      // Production's gateway (the plain sandbox here) sends no events: there is nothing to post to.
      const production = await post(body, sign(body, clock.now()), '/webhooks/stripe');
      assert.equal(production.status, 404);
      assert.equal(production.json.error, 'NOT_FOUND');
      assert.equal(await storedCount(), before);
      // Not part of the API's documentation.
      const openapi = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      assert.ok(!Object.keys(openapi.paths).some((path) => path.includes('webhooks')));
    });

    test('a duplicate delivery is stored once, and its refund applied once', async () => {
      const { id, attempt, payment } = await bought('ONETIME');
      const body = bodyOf(eventId(), {
        kind: 'refunds',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        refunds: [
          {
            reference: `re_dup_${kind}`,
            amountMinor: payment.amountTotalMinor,
            currency: 'USD',
            refundAttemptId: null,
            failed: false,
          },
        ],
      });
      const before = await storedCount();
      for (let i = 0; i < 3; i++) {
        const res = await post(body, sign(body, clock.now()));
        assert.equal(res.status, 200);
        assert.deepEqual(res.json, { received: true });
      }
      assert.equal(await storedCount(), before + 1, 'one event stored');
      assert.deepEqual(await settleAll(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      assert.equal((await entriesOf(id)).filter((e) => e.type === 'ONETIME_PAYMENT_REFUND').length, 1);
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 }, 'nothing left to do');
    });

    test("a refund made in the processor's dashboard: one refund entry, REFUNDED in the feed and the ledger; replayed 3 times, still one", async () => {
      const { id, attempt, payment } = await bought('ONETIME');
      const refund = {
        reference: `re_dash_${kind}`,
        amountMinor: payment.amountTotalMinor,
        currency: 'USD',
        refundAttemptId: null,
        failed: false,
      };
      const event: ProcessorEvent = {
        kind: 'refunds',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        refunds: [refund],
      };
      tick();
      await deliver(event);
      assert.deepEqual(await settleAll(), { processed: 1, failed: 0, ignored: 0, refused: 0 });

      const check = async () => {
        const entries = await entriesOf(id);
        const refunds = entries.filter((e) => e.type === 'ONETIME_PAYMENT_REFUND');
        assert.equal(refunds.length, 1);
        assert.equal(refunds[0]!.externalId, refund.reference);
        assert.equal(refunds[0]!.reversesEntryId, payment.id);
        assert.equal(refunds[0]!.amountTotalMinor, -payment.amountTotalMinor);
        assert.equal(refunds[0]!.incomeMinor, -payment.incomeMinor);
        const tx = await read(id);
        assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
        assert.deepEqual(
          tx.entries.map((e: any) => [e.type, e.amountTotal]),
          [
            ['ONETIME_PAYMENT', '20.00'],
            ['ONETIME_PAYMENT_REFUND', '-20.00'],
          ],
        );
      };
      await check();
      const feed = await changed(id);
      assert.equal(feed?.changedStatus, 'CHANGED_STATUS_REFUNDED');
      assert.equal(feed?.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      await markSeen(id);

      // The same refund again: under new event ids (the processor's other event types), and replayed.
      for (let i = 0; i < 3; i++) {
        tick();
        await deliver(event);
      }
      assert.deepEqual(await settleAll(), { processed: 3, failed: 0, ignored: 0, refused: 0 });
      await check();
      assert.equal(await changed(id), undefined, 'nothing new for the vendor');
    });

    test('a partial refund at the processor reverses that part of the payment, in exact integers that add up', async () => {
      // Germany: 19% VAT, so the tax is scaled too.
      const { id, attempt, payment } = await bought('ONETIME', { country: 'DE', email: 'partial@example.com' });
      assert.ok(payment.taxMinor > 0);
      const part = 777;
      tick();
      await deliver({
        kind: 'refunds',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        refunds: [
          {
            reference: `re_part_${kind}`,
            amountMinor: part,
            currency: payment.currency,
            refundAttemptId: null,
            failed: false,
          },
        ],
      });
      await settleAll();
      const refund = (await entriesOf(id)).find((e) => e.type === 'ONETIME_PAYMENT_REFUND')!;
      assert.equal(refund.amountTotalMinor, -part);
      assert.equal(refund.netMinor + refund.taxMinor, -part);
      assert.equal(refund.taxMinor, -Math.round((payment.taxMinor * part) / payment.amountTotalMinor));
      for (const field of ['taxMinor', 'netMinor', 'incomeMinor', 'transactionFeeMinor'] as const)
        assert.ok(Number.isInteger(refund[field]), field);
      // A part refunded changes no status (docs/decisions.md §6a); the vendor sees the change in the feed.
      assert.equal((await read(id)).transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal((await changed(id))?.changeStatus, 'CHANGED_STATUS_REFUNDED');
    });

    test('a dispute opened: one CHARGEBACK, the subscription cancelled by the platform; won: a CHARGEBACK of the opposite sign, REFUNDED again', async () => {
      const { id, attempt, payment } = await bought('SUBSCRIPTION', { email: 'disputer@example.com' });
      const dispute = (outcome: 'open' | 'won' | 'lost'): ProcessorEvent => ({
        kind: 'dispute',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        disputeReference: `dp_${kind}_1`,
        amountMinor: payment.amountTotalMinor,
        currency: 'USD',
        outcome,
      });
      tick();
      await deliver(dispute('open'));
      await settleAll();
      let entries = await entriesOf(id);
      assert.deepEqual(
        entries.map((e) => [e.type, e.amountTotalMinor]),
        [
          ['SUBSCRIPTION_PAYMENT', payment.amountTotalMinor],
          ['CHARGEBACK', -payment.amountTotalMinor],
        ],
      );
      assert.equal(entries[1]!.externalId, `dp_${kind}_1`);
      assert.equal(entries[1]!.reversesEntryId, payment.id);
      assert.equal(entries[1]!.invoiceNumber, null, 'a chargeback is no credit note');
      let tx = await listed(id, 'disputer@example.com');
      assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(tx.whoCanceled, 'TRANSACTION_CLOUD_ADMIN');
      assert.equal(tx.nextCharge ?? null, null);
      assert.equal((await changed(id))?.changedStatus, 'CHANGED_STATUS_REFUNDED');
      await markSeen(id);

      tick();
      await deliver(dispute('won'));
      await settleAll();
      entries = await entriesOf(id);
      assert.deepEqual(
        entries.map((e) => [e.type, e.amountTotalMinor, e.incomeMinor]),
        [
          ['SUBSCRIPTION_PAYMENT', payment.amountTotalMinor, payment.incomeMinor],
          ['CHARGEBACK', -payment.amountTotalMinor, -payment.incomeMinor],
          ['CHARGEBACK', payment.amountTotalMinor, payment.incomeMinor],
        ],
      );
      assert.equal(entries[2]!.reversesEntryId, entries[1]!.id);
      tx = await listed(id, 'disputer@example.com');
      assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED', 'the customer is not re-subscribed');
      assert.equal(tx.whoCanceled, 'TRANSACTION_CLOUD_ADMIN');
      const feed = await changed(id);
      assert.equal(feed?.changedStatus, 'CHANGED_STATUS_REFUNDED', 'the vendor hears of the money coming back');
      await markSeen(id);
      assert.deepEqual(
        (await read(id)).entries.map((e: any) => [e.type, e.amountTotal]),
        [
          ['SUBSCRIPTION_PAYMENT', '20.00'],
          ['CHARGEBACK', '-20.00'],
          ['CHARGEBACK', '20.00'],
        ],
      );

      // Replayed, duplicated, and a late 'lost' of the same dispute: nothing changes.
      for (const outcome of ['open', 'won', 'open', 'lost'] as const) {
        tick();
        await deliver(dispute(outcome));
      }
      await settleAll();
      assert.equal((await entriesOf(id)).length, 3);
      assert.equal(await changed(id), undefined);
    });

    test('a won dispute delivered before it was opened ends the same; the late open changes nothing', async () => {
      const { id, attempt, payment } = await bought('SUBSCRIPTION', { email: 'reordered@example.com' });
      const dispute = (outcome: 'open' | 'won'): ProcessorEvent => ({
        kind: 'dispute',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        disputeReference: `dp_${kind}_2`,
        amountMinor: payment.amountTotalMinor,
        currency: 'USD',
        outcome,
      });
      tick();
      const openedAt = clock.now();
      tick(60_000);
      await deliver(dispute('won'));
      await settleAll();
      const expectEndState = async () => {
        const entries = await entriesOf(id);
        assert.deepEqual(
          entries.map((e) => [e.type, e.amountTotalMinor, e.externalId]),
          [
            ['SUBSCRIPTION_PAYMENT', payment.amountTotalMinor, payment.externalId],
            ['CHARGEBACK', -payment.amountTotalMinor, `dp_${kind}_2`],
            ['CHARGEBACK', payment.amountTotalMinor, `dp_${kind}_2:won`],
          ],
        );
        const tx = await listed(id, 'reordered@example.com');
        assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
        assert.equal(tx.whoCanceled, 'TRANSACTION_CLOUD_ADMIN');
      };
      await expectEndState();
      assert.equal((await changed(id))?.changedStatus, 'CHANGED_STATUS_REFUNDED');
      await markSeen(id);

      tick();
      await deliver(dispute('open'), { created: openedAt });
      await settleAll();
      await expectEndState();
      assert.equal(await changed(id), undefined);
    });

    test('a lost dispute delivered alone charges back once', async () => {
      const { id, attempt, payment } = await bought('ONETIME');
      const lost: ProcessorEvent = {
        kind: 'dispute',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        disputeReference: `dp_${kind}_3`,
        amountMinor: payment.amountTotalMinor,
        currency: 'USD',
        outcome: 'lost',
      };
      tick();
      await deliver(lost);
      await deliver(lost);
      await settleAll();
      assert.deepEqual(
        (await entriesOf(id)).map((e) => e.type),
        ['ONETIME_PAYMENT', 'CHARGEBACK'],
      );
      const tx = await read(id);
      assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(tx.whoCanceled, null, 'a one-time payment has nothing to cancel');
    });

    test('a refund at the processor of more than is left of the payment (after a chargeback) is refused: nothing booked, tried again for a while, then set aside with its refusal', async () => {
      const { id, attempt, payment } = await bought('ONETIME');
      tick();
      await deliver({
        kind: 'dispute',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        disputeReference: `dp_${kind}_4`,
        amountMinor: payment.amountTotalMinor,
        currency: 'USD',
        outcome: 'open',
      });
      await settleAll();
      await markSeen(id);
      tick();
      const refusedEvent = await deliver({
        kind: 'refunds',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        refunds: [
          {
            reference: `re_after_${kind}`,
            amountMinor: payment.amountTotalMinor,
            currency: 'USD',
            refundAttemptId: null,
            failed: false,
          },
        ],
      });
      const refused = await runDue();
      assert.deepEqual(refused, { processed: 0, failed: 0, ignored: 0, refused: 1 });
      assert.match((await stored(refusedEvent))!.last_error ?? '', /is left/);
      assert.equal((await stored(refusedEvent))!.processed_at, null, 'a dispute won may yet make room for it');
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 }, 'not due again at once');
      for (let tries = 1; tries < REFUSED_TRIES; tries++) {
        tick(retryDelayMs(tries));
        assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 1 }, `try ${tries + 1}`);
      }
      const setAside = (await stored(refusedEvent))!;
      assert.notEqual(setAside.processed_at, null, `set aside after ${REFUSED_TRIES} tries`);
      assert.match(setAside.last_error ?? '', /is left/);
      tick(retryDelayMs(REFUSED_TRIES));
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 });
      assert.deepEqual(
        (await entriesOf(id)).map((e) => e.type),
        ['ONETIME_PAYMENT', 'CHARGEBACK'],
      );
      assert.equal(await changed(id), undefined);
    });

    test('a refund event for a payment not booked yet is tried again later, then applied once; the payment event books the purchase', async () => {
      tick();
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      // The charge goes through but its answer is lost: the purchase is being confirmed.
      script.loseChargeAnswer = true;
      const result = await t.services.purchases.purchase(v.scope(), {
        productId: product.id,
        email: 'early@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PENDING');
      const attempt = (await t.services.store.chargeAttempts.findByKey((result as { attemptKey: string }).attemptKey))!;
      assert.ok(isOpen(attempt));
      const reference = script.charged.get(attempt.id)!;
      assert.ok(reference);

      tick();
      const refundEvent = await deliver({
        kind: 'refunds',
        paymentReference: reference,
        attemptId: attempt.id,
        refunds: [
          { reference: `re_early_${kind}`, amountMinor: 2000, currency: 'USD', refundAttemptId: null, failed: false },
        ],
      });
      assert.deepEqual(await runDue(), { processed: 0, failed: 1, ignored: 0, refused: 0 });
      const failed = (await stored(refundEvent))!;
      assert.equal(Number(failed.tries), 1);
      assert.equal(failed.processed_at, null);
      assert.match(failed.last_error!, /not booked yet/);
      assert.equal(failed.next_try_at, new Date(clock.now().getTime() + 30_000).toISOString(), 'tried again in 30 s');
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 }, 'not due yet');

      // The processor says the payment went through: the purchase is booked from the processor's own answer.
      tick();
      const lookups = script.lookupCalls;
      await deliver({ kind: 'payment', attemptId: attempt.id, reference });
      assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      assert.equal(script.lookupCalls, lookups + 1, 'the processor was asked');
      const settled = (await t.services.store.chargeAttempts.findById(attempt.id))!;
      assert.equal(settled.status, 'SUCCEEDED');
      const id = settled.transactionId!;
      assert.deepEqual(
        (await entriesOf(id)).map((e) => [e.type, e.externalId]),
        [['ONETIME_PAYMENT', reference]],
      );
      assert.equal((await read(id)).transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');

      // The refund's next try: now it applies, once.
      tick(30_000);
      assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      assert.equal((await stored(refundEvent))!.last_error, null);
      assert.deepEqual(
        (await entriesOf(id)).map((e) => [e.type, e.externalId]),
        [
          ['ONETIME_PAYMENT', reference],
          ['ONETIME_PAYMENT_REFUND', `re_early_${kind}`],
        ],
      );
      assert.equal((await read(id)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      tick(3600_000);
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 });
      // The purchase's own retry finds it paid and charges nothing more.
      const charges = script.charged.size;
      const status = await t.services.purchases.status(v.scope(), attempt.key);
      assert.equal(status?.status, 'PAID');
      assert.equal(script.charged.size, charges);
    });

    test('a payment event for a purchase the processor never had voids it; one already settled is left alone', async () => {
      tick();
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      script.loseChargeAnswer = true;
      const result = await t.services.purchases.purchase(v.scope(), {
        productId: product.id,
        email: 'void@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      const attempt = (await t.services.store.chargeAttempts.findByKey((result as { attemptKey: string }).attemptKey))!;
      script.lookups.set(attempt.id, { status: 'UNKNOWN' });
      tick();
      await deliver({ kind: 'payment', attemptId: attempt.id, reference: 'pi_unknown' });
      assert.deepEqual(await settleAll(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      assert.ok(
        isOpen(await t.services.store.chargeAttempts.findById(attempt.id)),
        'unknown at the processor: still open',
      );
      script.lookups.set(attempt.id, { status: 'NOT_FOUND' });
      await deliver({ kind: 'payment', attemptId: attempt.id, reference: 'pi_unknown' });
      await settleAll();
      assert.equal((await t.services.store.chargeAttempts.findById(attempt.id))?.status, 'VOIDED');
      script.lookups.delete(attempt.id);

      const { id, attempt: paid } = await bought('ONETIME');
      const lookups = script.lookupCalls;
      await deliver({ kind: 'payment', attemptId: paid.id, reference: script.charged.get(paid.id)! });
      await settleAll();
      assert.equal(script.lookupCalls, lookups, 'a settled purchase is not asked about');
      assert.equal((await entriesOf(id)).length, 1);
    });

    test("a refund event for opentill's own API refund settles its open attempt once; the API's later answer adds nothing", async () => {
      const { id, attempt, payment } = await bought('ONETIME', { email: 'api-refund@example.com' });
      tick();
      script.loseRefundAnswer = true;
      const first = await v.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        headers: { 'idempotency-key': `refund-${kind}` },
      });
      assert.equal(first.status, 202, first.text);
      const refundAttempt = (await t.services.store.chargeAttempts.findOpenFor(id, 'REFUND'))!;
      assert.ok(refundAttempt);
      const refundReference = script.refunded.get(refundAttempt.id)!;
      assert.ok(refundReference);

      tick();
      const event: ProcessorEvent = {
        kind: 'refunds',
        paymentReference: payment.externalId!,
        attemptId: attempt.id,
        refunds: [
          {
            reference: refundReference,
            amountMinor: payment.amountTotalMinor,
            currency: 'USD',
            refundAttemptId: refundAttempt.id,
            failed: false,
          },
        ],
      };
      await deliver(event);
      await settleAll();
      assert.equal((await t.services.store.chargeAttempts.findById(refundAttempt.id))?.status, 'SUCCEEDED');
      const refunds = async () => (await entriesOf(id)).filter((e) => e.type === 'ONETIME_PAYMENT_REFUND');
      assert.deepEqual(
        (await refunds()).map((e) => e.externalId),
        [refundReference],
      );

      // The client retries under its key: the refund it asked for, booked once.
      const retry = await v.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        headers: { 'idempotency-key': `refund-${kind}` },
      });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.json[0].externalId, refundReference);
      // The same refund told again, with and without opentill's attempt in it, and the reconciler: nothing more.
      await deliver(event);
      await deliver({ ...event, refunds: [{ ...event.refunds[0]!, refundAttemptId: null, failed: false }] });
      await settleAll();
      await t.services.reconciler.run();
      assert.equal((await refunds()).length, 1);
      assert.equal((await read(id)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
    });

    test("events for attempts that are not this opentill's (or not this environment's) are ignored and marked processed", async () => {
      tick();
      const production = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] }, 'production');
      const productionId = await v.buy(production.id, {}, 'production');
      const productionAttempt = (await t.services.store.chargeAttempts.latestFor(productionId, 'PURCHASE'))!;
      const before = (await entriesOf(productionId)).length;
      const ids = [
        await deliver({ kind: 'payment', attemptId: 'TC-CA_NOT_OURS', reference: 'pi_x' }),
        await deliver({
          kind: 'refunds',
          paymentReference: 'pi_x',
          attemptId: 'TC-CA_NOT_OURS',
          refunds: [
            {
              reference: 're_x',
              amountMinor: 100,
              currency: 'USD',
              refundAttemptId: 'TC-CA_NOT_OURS_EITHER',
              failed: false,
            },
          ],
        }),
        await deliver({
          kind: 'dispute',
          paymentReference: 'pi_x',
          attemptId: 'TC-CA_NOT_OURS',
          disputeReference: 'dp_x',
          amountMinor: 100,
          currency: 'USD',
          outcome: 'open',
        }),
        await deliver({ kind: 'ignored', reason: 'an event opentill does not act on' }),
        // A sandbox event naming a production attempt: never production's money.
        await deliver({
          kind: 'dispute',
          paymentReference: (await paymentOf(productionId)).externalId!,
          attemptId: productionAttempt.id,
          disputeReference: 'dp_cross',
          amountMinor: 2000,
          currency: 'USD',
          outcome: 'open',
        }),
      ];
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 5, refused: 0 });
      for (const id of ids) {
        const row = (await stored(id))!;
        assert.equal(row.processed_at, clock.now().toISOString(), id);
        assert.equal(row.last_error, null);
      }
      assert.equal((await entriesOf(productionId)).length, before);
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 });
    });

    test('a translation that throws is marked failed (no e-mail in the error), backs off, and is processed on a later try', async () => {
      const { id, attempt, payment } = await bought('ONETIME');
      tick();
      const event = eventId();
      script.failTranslate.set(event, 2);
      await deliver(
        {
          kind: 'refunds',
          paymentReference: payment.externalId!,
          attemptId: attempt.id,
          refunds: [
            {
              reference: `re_flaky_${kind}`,
              amountMinor: payment.amountTotalMinor,
              currency: 'USD',
              refundAttemptId: null,
              failed: false,
            },
          ],
        },
        { id: event },
      );
      assert.deepEqual(await runDue(), { processed: 0, failed: 1, ignored: 0, refused: 0 });
      let row = (await stored(event))!;
      assert.equal(Number(row.tries), 1);
      assert.equal(row.last_error, 'The processor could not be reached about [e-mail]');
      assert.equal(row.next_try_at, new Date(clock.now().getTime() + 30_000).toISOString());
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 });

      tick(30_000);
      assert.deepEqual(await runDue(), { processed: 0, failed: 1, ignored: 0, refused: 0 });
      row = (await stored(event))!;
      assert.equal(Number(row.tries), 2);
      assert.equal(row.next_try_at, new Date(clock.now().getTime() + 60_000).toISOString(), 'twice as long');
      tick(30_000);
      assert.deepEqual(await runDue(), { processed: 0, failed: 0, ignored: 0, refused: 0 });
      tick(30_000);
      assert.deepEqual(await runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      row = (await stored(event))!;
      assert.equal(row.processed_at, clock.now().toISOString());
      assert.equal(row.last_error, null);
      assert.equal((await entriesOf(id)).filter((e) => e.type === 'ONETIME_PAYMENT_REFUND').length, 1);
    });

    test('a renewal the bank held is handed to billing once the customer authenticated it; an open renewal is left to billing', async () => {
      const { id } = await bought('SUBSCRIPTION', { email: 'held@example.com' });
      const handed: [string, string][] = [];
      const gateways = { sandbox: processor.gateway, production: processor.gateway };
      const protocol = chargeProtocol({ store: t.services.store, clock, gateways, gatewayTimeoutMs: 5000 });
      const events = processorEventService({
        store: t.services.store,
        clock,
        gateways,
        protocol,
        reversals: reversalService({}),
        bookings: {
          PURCHASE: t.services.purchases.booking,
          VAULTED: t.services.vaulted.booking,
          REFUND: t.services.refunds.booking,
        },
        authenticatedRenewal: async (attempt, reference) => {
          handed.push([attempt.id, reference]);
        },
      });
      const renewal = (key: string) =>
        pendingAttempt({
          scope: v.scope(),
          kind: 'RENEWAL',
          key,
          transactionId: id,
          amountMinor: 2000,
          currency: 'USD',
          now: clock.now(),
          plan: null,
        });
      const held = (await t.services.store.chargeAttempts.record(renewal(`renewal:${id}:1:0`))).attempt;
      await t.services.store.chargeAttempts.settle(held.id, {
        status: 'DECLINED',
        gatewayReference: 'pi_held',
        failureCode: 'authentication_required',
        updatedAt: clock.now().toISOString(),
      });
      const open = (await t.services.store.chargeAttempts.record(renewal(`renewal:${id}:2:0`))).attempt;

      // Still waiting for the customer: nothing to hand over.
      script.lookups.set(held.id, { status: 'UNKNOWN' });
      tick();
      await deliver({ kind: 'payment', attemptId: held.id, reference: 'pi_held' });
      assert.deepEqual(await events.runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      assert.deepEqual(handed, []);

      script.lookups.set(held.id, { status: 'SUCCEEDED', reference: 'pi_held', feeMinor: 0 });
      const lookups = script.lookupCalls;
      await deliver({ kind: 'payment', attemptId: held.id, reference: 'pi_held' });
      await deliver({ kind: 'payment', attemptId: open.id, reference: 'pi_open' });
      assert.deepEqual(await events.runDue(), { processed: 2, failed: 0, ignored: 0, refused: 0 });
      assert.deepEqual(handed, [[held.id, 'pi_held']]);
      assert.equal(script.lookupCalls, lookups + 1, 'the open renewal is not asked about here');
      assert.ok(isOpen(await t.services.store.chargeAttempts.findById(open.id)), "billing's to settle");
      script.lookups.delete(held.id);
      await t.services.store.chargeAttempts.settle(open.id, {
        status: 'VOIDED',
        gatewayReference: null,
        failureCode: null,
        updatedAt: clock.now().toISOString(),
      });
    });
  });
}

describe('processor events: pure parts', () => {
  test('errors kept with an event are short and name no e-mail', () => {
    assert.equal(shortError(new Error('no answer for jane.doe+x@example.co.uk today')), 'no answer for [e-mail] today');
    assert.equal(shortError(new Error('x'.repeat(1000))).length, 300);
  });
});
