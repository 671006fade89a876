import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UNRESOLVED_AFTER_MS } from '../../src/domain/payments/charge-protocol.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeAttempt } from '../../src/domain/ports.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedProcessor } from '../helpers/scripted-processor.ts';
import { storeKinds, TEST_CARD, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * How long a charge whose outcome is unknown stays open (docs/decisions.md §10a): the reconciler asks
 * the processor about it on every run, and only once it has been unknown for more than a day since it
 * was recorded does it become UNRESOLVED, for an operator, and is asked no more. The day is real time:
 * the processor's side (its charge, its idempotency) lives in real time, so a vendor who moves its
 * sandbox clock forward neither hands its open charges to an operator early nor keeps them from the
 * reconciler.
 */
const DAY = 86_400_000;
const GRACE_MS = 60_000;

for (const kind of await storeKinds()) {
  describe(`how long an unknown outcome stays open (${kind})`, () => {
    const clock = fixedClock(new Date('2031-02-01T09:00:00.000Z'));
    const processor = scriptedProcessor(() => clock.now());
    const { script } = processor;
    let t: TestApp;
    let v: TestVendor;
    useTestApp(
      kind,
      { clock, gateways: { sandbox: processor.gateway }, payments: { reconcileGraceMs: GRACE_MS } },
      (app, vendor) => {
        t = app;
        v = vendor;
        processor.use(sandboxGateway(app.services.database.kysely, () => clock.now()));
      },
    );

    const attempt = async (id: string) => (await t.services.store.chargeAttempts.findById(id))!;
    /** A purchase whose charge went through at the processor, its answer lost; the processor cannot say more since. */
    async function unknownPurchase(vendor: TestVendor, email: string): Promise<ChargeAttempt> {
      const product = await vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 12 }] });
      script.loseChargeAnswer = true;
      const result = await t.services.purchases.purchase(vendor.scope(), {
        productId: product.id,
        email,
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PENDING');
      const recorded = (await t.services.store.chargeAttempts.findByKey(
        (result as { attemptKey: string }).attemptKey,
      ))!;
      assert.equal(recorded.createdAt, clock.now().toISOString(), 'recorded at real time');
      script.lookups.set(recorded.id, { status: 'UNKNOWN' });
      return recorded;
    }
    /** One reconciler run at `at`: whether it asked the processor about the attempt, and how it left it. */
    async function reconcileAt(at: number, a: ChargeAttempt) {
      clock.set(new Date(at));
      const asked = script.lookupCalls;
      const report = await t.services.reconciler.run();
      return { asked: script.lookupCalls - asked, status: (await attempt(a.id)).status, report };
    }
    test('an unknown purchase is asked about on every run and stays UNKNOWN up to a day after it was recorded; a millisecond more and it is UNRESOLVED, asked no more', async () => {
      const a = await unknownPurchase(v, 'edge@example.com');
      const recorded = Date.parse(a.createdAt);
      for (const at of [
        recorded + GRACE_MS,
        recorded + DAY / 2,
        recorded + UNRESOLVED_AFTER_MS - 1000,
        recorded + UNRESOLVED_AFTER_MS,
      ]) {
        const run = await reconcileAt(at, a);
        assert.deepEqual(
          [run.asked, run.status],
          [1, 'UNKNOWN'],
          `${(at - recorded) / 1000} s after it was recorded: asked again, still open`,
        );
        assert.deepEqual([run.report.open, run.report.unresolved], [1, 0]);
      }
      const over = await reconcileAt(recorded + UNRESOLVED_AFTER_MS + 1, a);
      assert.deepEqual(
        [over.status, over.report.unresolved, over.report.open],
        ['UNRESOLVED', 1, 0],
        'more than a day: for an operator',
      );
      const later = await reconcileAt(recorded + 2 * DAY, a);
      assert.deepEqual([later.asked, later.status], [0, 'UNRESOLVED'], 'asked no more');
      assert.equal(UNRESOLVED_AFTER_MS, DAY, 'the limit is a day (docs/decisions.md §10a)');
    });

    test('a purchase recorded after the vendor moved its sandbox clock 30 days ahead is not UNRESOLVED before a day of real time', async () => {
      const moved = await v.api('/v1/clock/advance', { body: { seconds: 30 * 86_400 } });
      assert.equal(moved.status, 200, moved.text);
      const a = await unknownPurchase(v, 'moved-before@example.com');
      const recorded = Date.parse(a.createdAt);
      for (const at of [recorded + GRACE_MS, recorded + UNRESOLVED_AFTER_MS]) {
        const run = await reconcileAt(at, a);
        assert.deepEqual(
          [run.asked, run.status],
          [1, 'UNKNOWN'],
          `${(at - recorded) / 1000} s of real time: still open`,
        );
      }
      assert.equal((await reconcileAt(recorded + UNRESOLVED_AFTER_MS + 1, a)).status, 'UNRESOLVED');
    });

    test('moving the sandbox clock while a purchase is unknown neither hands it to an operator early nor keeps it from the reconciler', async () => {
      const vendor = await t.newVendor('Mover Ltd');
      const a = await unknownPurchase(vendor, 'moved-after@example.com');
      const recorded = Date.parse(a.createdAt);
      const moved = await vendor.api('/v1/clock/advance', { body: { seconds: 2 * 86_400 } });
      assert.equal(moved.status, 200, moved.text);
      const run = await reconcileAt(recorded + GRACE_MS, a);
      assert.deepEqual(
        [run.asked, run.status],
        [1, 'UNKNOWN'],
        'two sandbox days on, one real minute: asked, still open',
      );
      // The processor learns the outcome: the next run books it.
      script.lookups.delete(a.id);
      const known = await reconcileAt(recorded + 2 * GRACE_MS, a);
      assert.deepEqual([known.asked, known.status], [1, 'SUCCEEDED']);
      assert.equal((await vendor.api(`/v1/transaction/${(await attempt(a.id)).transactionId}`)).status, 200);
    });

    test('a charge-vaulted in a sandbox running 30 days ahead whose answer was lost is found by the reconciler after its grace period, not a month later', async () => {
      const vendor = await t.newVendor('Vaulted Ahead Ltd');
      assert.equal((await vendor.api('/v1/clock/advance', { body: { seconds: 30 * 86_400 } })).status, 200);
      const product = await vendor.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await vendor.buy(product.id, { email: 'vaulted-ahead@example.com' });
      script.loseChargeAnswer = true;
      const charged = await vendor.api(`/v1/charge-vaulted/${id}`, {
        method: 'POST',
        headers: { 'idempotency-key': `ahead-${kind}` },
        body: { prices: [{ currency: 'USD', value: 9 }] },
      });
      assert.equal(charged.status, 202, charged.text);
      const a = (await t.services.store.chargeAttempts.findOpenFor(id, 'VAULTED'))!;
      assert.ok(a, 'open');
      const run = await reconcileAt(clock.now().getTime() + GRACE_MS + 1000, a);
      assert.deepEqual([run.asked, run.status], [1, 'SUCCEEDED'], 'asked and booked a minute later');
      const entries = (await vendor.api(`/v1/transaction/${id}`)).json.entries as { type: string }[];
      assert.deepEqual(
        entries.map((e) => e.type),
        ['VAULTED_PAYMENT'],
      );
    });

    test('an unknown refund stays open up to a day, then is UNRESOLVED; the moved sandbox clock does not count', async () => {
      const vendor = await t.newVendor('Refunder Ltd');
      assert.equal((await vendor.api('/v1/clock/advance', { body: { seconds: 3 * 86_400 } })).status, 200);
      const product = await vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
      const id = await vendor.buy(product.id, { email: 'refund-unknown@example.com' });
      script.loseRefundAnswer = true;
      const refund = await vendor.api(`/v1/refund-transaction/${id}`, { method: 'POST', body: {} });
      assert.equal(refund.status, 202, refund.text);
      const a = (await t.services.store.chargeAttempts.findOpenFor(id, 'REFUND'))!;
      assert.equal(a.createdAt, clock.now().toISOString(), 'recorded at real time');
      const recorded = Date.parse(a.createdAt);
      // The processor cannot say: its lookup of the refund fails.
      const lookupRefund = processor.gateway.lookupRefund;
      processor.gateway.lookupRefund = async () => ({ status: 'UNKNOWN' });
      try {
        for (const at of [recorded + GRACE_MS, recorded + UNRESOLVED_AFTER_MS]) {
          clock.set(new Date(at));
          await t.services.reconciler.run();
          assert.equal((await attempt(a.id)).status, 'UNKNOWN', `${(at - recorded) / 1000} s: still open`);
        }
        clock.set(new Date(recorded + UNRESOLVED_AFTER_MS + 1));
        await t.services.reconciler.run();
        assert.equal((await attempt(a.id)).status, 'UNRESOLVED');
      } finally {
        processor.gateway.lookupRefund = lookupRefund;
      }
    });
  });
}
