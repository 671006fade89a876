import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { startBillingWorker } from '../../src/worker.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Every lifecycle path of DECISIONS.md through the billing worker, on both stores: status,
 * whoCanceled, dates, ledger entries and the change flag the feed shows. Customers are in the US
 * without a ZIP code, so no tax: net = total.
 */
const DAY = 86_400_000;
const LATER_DECLINED = { number: '4000000000000341', expMonth: 12, expYear: 2035 };

for (const kind of await storeKinds()) {
  describe(`billing lifecycle (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-31T10:00:00.000Z'));
    /** Declines the next n renewal charges, then lets the sandbox answer; or answers UNKNOWN. */
    const script = { decline: 0, unknown: 0, attempts: [] as string[] };
    let t: TestApp;
    let v: TestVendor;

    // The sandbox's own gateway behind a script: it can decline or lose the answer on demand.
    const network = scriptedSandbox(async (request, real): Promise<ChargeResult> => {
      script.attempts.push(request.attemptId);
      if (script.unknown > 0) {
        script.unknown--;
        return { status: 'UNKNOWN' };
      }
      if (script.decline > 0) {
        script.decline--;
        return { status: 'DECLINED', code: 'card_declined', message: 'The card was declined.', permanent: false };
      }
      return real.charge(request);
    });
    const scripted = network.gateway;

    before(async () => {
      t = await startTestApp(kind, { clock, gateways: { sandbox: scripted }, billing: { unknownRetryMs: 3600_000 } });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(() => t.close());
    beforeEach(async () => {
      clock.set(new Date('2030-01-31T10:00:00.000Z'));
      Object.assign(script, { decline: 0, unknown: 0, attempts: [] });
      v = await t.newVendor();
    });

    // The vendor's own sandbox only: earlier tests' subscriptions in this database stay out of the counts.
    const run = () => t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
    const at = (iso: string) => clock.set(new Date(iso));
    const product = (frequency: string, usd = 20, trialDays = 0) =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: frequency,
        trialDays,
        prices: [{ currency: 'USD', value: usd }],
      } as any);
    const listed = async (id: string, email = 'customer@example.com') => {
      const res = await v.api(`/v1/transactions/${encodeURIComponent(email)}`);
      return (res.json as any[]).find((tx) => tx.id === id);
    };
    const payments = async (id: string) => {
      const res = await v.api(`/v1/transaction/${id}`);
      assert.equal(res.status, 200, res.text);
      return (res.json.entries as any[]).filter((e) => e.type === 'SUBSCRIPTION_PAYMENT');
    };
    const periodStarts = async (id: string) =>
      (await t.services.store.entries.listForTransaction(id)).filter((e) => e.periodStart).map((e) => e.periodStart);
    /** The change flag the feed shows for `id` (undefined if it is not in the feed), then marks it processed. */
    const feedFlag = async (id: string) => {
      const res = await v.api('/v1/changed-transactions');
      const element = (res.json as any[]).find((tx) => tx.id === id);
      if (element) await v.api(`/v1/changed-transactions/${id}`, { method: 'POST' });
      return element?.changeStatus as string | undefined;
    };

    test('a monthly subscription started on 31 January renews on 28 February, then on 31 March', async () => {
      const id = await v.buy((await product('MONTHLY')).id);
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_NEW');
      assert.equal((await listed(id)).nextCharge, '2030-02-28T10:00:00.000Z');

      at('2030-02-28T09:59:59.999Z');
      assert.equal((await run()).renewed, 0, 'nothing is due a millisecond early');
      assert.equal(await feedFlag(id), undefined);

      at('2030-02-28T10:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      let tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(tx.lastCharge, '2030-02-28T10:00:00.000Z');
      assert.equal(tx.nextCharge, '2030-03-31T10:00:00.000Z');
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_RENEWED');
      assert.equal((await run()).renewed, 0, 'a second run charges nothing');

      at('2030-03-31T10:00:05.000Z');
      assert.equal((await run()).renewed, 1);
      tx = await listed(id);
      assert.equal(tx.nextCharge, '2030-04-30T10:00:00.000Z');
      const paid = await payments(id);
      assert.deepEqual(
        paid.map((e) => e.amountTotal),
        ['20.00', '20.00', '20.00'],
      );
      assert.deepEqual(await periodStarts(id), [
        '2030-01-31T10:00:00.000Z',
        '2030-02-28T10:00:00.000Z',
        '2030-03-31T10:00:00.000Z',
      ]);
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_RENEWED');
    });

    test('every frequency renews on calendar-correct dates, a leap day included', async () => {
      at('2030-08-31T00:00:00.000Z');
      const expected: Record<string, [string, string]> = {
        DAILY: ['2030-09-01T00:00:00.000Z', '2030-09-02T00:00:00.000Z'],
        WEEKLY: ['2030-09-07T00:00:00.000Z', '2030-09-14T00:00:00.000Z'],
        MONTHLY: ['2030-09-30T00:00:00.000Z', '2030-10-31T00:00:00.000Z'],
        HALF_YEARLY: ['2031-02-28T00:00:00.000Z', '2031-08-31T00:00:00.000Z'],
        YEARLY: ['2031-08-31T00:00:00.000Z', '2032-08-31T00:00:00.000Z'],
      };
      // Each frequency with a vendor of its own, since `run` bills one vendor's sandbox: one vendor's daily
      // subscription would otherwise renew every day up to 2037 under the other runs (2,500 renewals, 12 s
      // of this test's 13 on PostgreSQL), which no assertion looks at.
      const ids: Record<string, string> = {};
      const vendors: Record<string, TestVendor> = {};
      for (const frequency of Object.keys(expected)) {
        at('2030-08-31T00:00:00.000Z');
        v = vendors[frequency] = await t.newVendor();
        ids[frequency] = await v.buy((await product(frequency)).id);
        assert.equal((await listed(ids[frequency]!)).nextCharge, expected[frequency]![0], frequency);
      }
      for (const [frequency, [first, second]] of Object.entries(expected)) {
        v = vendors[frequency]!;
        at(first);
        await run();
        const tx = await listed(ids[frequency]!);
        assert.equal(tx.lastCharge, first, frequency);
        assert.equal(tx.nextCharge, second, frequency);
      }
      // Yearly from a leap day: 28 February in common years, 29 February again in 2036.
      at('2032-02-29T12:00:00.000Z');
      v = await t.newVendor();
      const leap = await v.buy((await product('YEARLY')).id);
      const dates = [];
      for (let year = 0; year < 4; year++) {
        at((await listed(leap)).nextCharge);
        await run();
        dates.push((await listed(leap)).nextCharge);
      }
      assert.deepEqual(dates, [
        '2034-02-28T12:00:00.000Z',
        '2035-02-28T12:00:00.000Z',
        '2036-02-29T12:00:00.000Z',
        '2037-02-28T12:00:00.000Z',
      ]);
    });

    test('a trial ends with its first charge: ACTIVE, RENEWED, one payment for the first period', async () => {
      const id = await v.buy((await product('MONTHLY', 20, 7)).id);
      let tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL');
      assert.equal(tx.nextCharge, '2030-02-07T10:00:00.000Z');
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_TRIAL');
      assert.equal((await payments(id)).length, 0);

      at('2030-02-07T10:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(tx.lastCharge, '2030-02-07T10:00:00.000Z');
      assert.equal(tx.nextCharge, '2030-03-07T10:00:00.000Z');
      assert.equal((await payments(id)).length, 1);
      assert.deepEqual(await periodStarts(id), ['2030-02-07T10:00:00.000Z']);
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_RENEWED');
    });

    test('cancelled: CANCELLED_PENDING until the paid period ends, then CANCELLED, never charged again', async () => {
      const id = await v.buy((await product('MONTHLY')).id);
      await feedFlag(id);
      at('2030-02-10T00:00:00.000Z');
      assert.equal((await v.api(`/v1/cancel-subscription/${id}`, { method: 'POST' })).status, 200);
      let tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal(tx.whoCanceled, 'VENDOR');
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_CANCELLED');

      at('2030-02-28T10:00:00.000Z');
      const report = await run();
      assert.deepEqual([report.renewed, report.ended], [0, 1]);
      tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(tx.whoCanceled, 'VENDOR');
      assert.equal(tx.nextCharge, null);
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_CANCELLED');
      assert.equal((await payments(id)).length, 1);
      at('2030-06-01T00:00:00.000Z');
      assert.deepEqual(await run(), {
        renewed: 0,
        declined: 0,
        ended: 0,
        failed: 0,
        unknown: 0,
        expiredOffers: 0,
        errors: [],
      });
    });

    test('cancelled in the trial: ends at once and is never charged', async () => {
      const id = await v.buy((await product('MONTHLY', 20, 14)).id);
      await feedFlag(id);
      await v.api(`/v1/cancel-subscription/${id}`, { method: 'POST' });
      const tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(tx.nextCharge, null);
      at('2030-03-01T00:00:00.000Z');
      assert.equal((await run()).renewed, 0);
      assert.equal((await payments(id)).length, 0);
      assert.equal(script.attempts.length, 0, 'the gateway was never asked');
    });

    test('declined renewal: retried 1, 3, 5 and 7 days after the due date, then CANCELLED by NEXT_CHARGE_FAILED', async () => {
      at('2030-01-10T08:00:00.000Z');
      const id = await v.buy((await product('MONTHLY')).id, { card: LATER_DECLINED });
      await feedFlag(id);
      script.attempts = [];
      const due = Date.parse('2030-02-10T08:00:00.000Z');
      const seen: (string | null)[] = [];
      for (const when of [0, 1, 3, 5]) {
        clock.set(new Date(due + when * DAY));
        const report = await run();
        assert.equal(report.declined, 1, `try on day ${when}`);
        const tx = await listed(id);
        assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
        seen.push(tx.nextCharge);
        assert.equal(await feedFlag(id), undefined, 'a declined try is not a change the vendor hears of');
      }
      assert.deepEqual(seen, [
        '2030-02-11T08:00:00.000Z',
        '2030-02-13T08:00:00.000Z',
        '2030-02-15T08:00:00.000Z',
        '2030-02-17T08:00:00.000Z',
      ]);
      clock.set(new Date(due + 7 * DAY));
      const report = await run();
      assert.deepEqual([report.declined, report.failed], [1, 1]);
      const tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(tx.whoCanceled, 'NEXT_CHARGE_FAILED');
      assert.equal(tx.nextCharge, null);
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_CANCELLED');
      assert.equal((await payments(id)).length, 1, 'only the first payment');
      assert.equal(new Set(script.attempts).size, 5, 'five distinct tries, one per date');
    });

    test('after a worker outage, overdue retries stay a day apart instead of cancelling at once', async () => {
      at('2030-01-10T08:00:00.000Z');
      const id = await v.buy((await product('MONTHLY')).id, { card: LATER_DECLINED });
      at('2030-02-20T08:00:00.000Z'); // ten days after the due date, every retry date is past
      assert.equal((await run()).declined, 1, 'one try per run, not five');
      const tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(tx.nextCharge, '2030-02-21T08:00:00.000Z');
    });

    test('a renewal that succeeds on its first retry keeps the calendar: the next charge is one month after the due date', async () => {
      const id = await v.buy((await product('MONTHLY')).id);
      script.decline = 1;
      at('2030-02-28T10:00:00.000Z');
      assert.equal((await run()).declined, 1);
      assert.equal((await listed(id)).nextCharge, '2030-03-01T10:00:00.000Z');
      at('2030-03-01T10:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      const tx = await listed(id);
      assert.equal(tx.lastCharge, '2030-03-01T10:00:00.000Z');
      assert.equal(tx.nextCharge, '2030-03-31T10:00:00.000Z');
      assert.deepEqual(await periodStarts(id), ['2030-01-31T10:00:00.000Z', '2030-02-28T10:00:00.000Z']);
    });

    test('an unknown gateway outcome is asked again later with the same attempt, and charged once', async () => {
      const id = await v.buy((await product('MONTHLY')).id);
      script.attempts = [];
      script.unknown = 1;
      at('2030-02-28T10:00:00.000Z');
      assert.equal((await run()).unknown, 1);
      assert.equal((await listed(id)).nextCharge, '2030-02-28T10:00:00.000Z', 'still due');
      at('2030-02-28T10:30:00.000Z');
      assert.equal((await run()).renewed, 0, 'held while the outcome is checked');
      at('2030-02-28T11:00:01.000Z');
      assert.equal((await run()).renewed, 1);
      assert.equal(script.attempts.length, 2);
      assert.equal(script.attempts[0], script.attempts[1], 'the same attempt id both times');
      assert.equal((await payments(id)).length, 2);
    });

    test('refunded: ends at once, and the worker charges it no more', async () => {
      const id = await v.buy((await product('MONTHLY')).id);
      await feedFlag(id);
      script.attempts = [];
      assert.equal((await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' })).status, 200);
      assert.equal(await feedFlag(id), 'CHANGED_STATUS_REFUNDED');
      at('2030-03-01T00:00:00.000Z');
      await run();
      const tx = await listed(id);
      assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
      assert.equal(tx.nextCharge, null);
      assert.equal((await payments(id)).length, 1);
      assert.equal(script.attempts.length, 0);
    });

    test('the sandbox clock: a vendor moves its own sandbox forward and sees the renewal; production time does not move', async () => {
      const other = await t.newVendor('Other');
      const mine = await v.buy((await product('MONTHLY')).id);
      const theirs = await other.buy(
        (await other.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' } as any)).id,
      );

      const production = await v.api('/v1/clock/advance', { body: { seconds: 86400 }, environment: 'production' });
      assert.equal(production.status, 404);
      assert.equal(production.json.error, 'NOT_FOUND');
      assert.match(production.json.message, /production time cannot be moved/);

      const moved = await v.api('/v1/clock/advance', { body: { seconds: 29 * 86400 } });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.json.now, '2030-03-01T10:00:00.000Z');
      assert.deepEqual(
        moved.json.billing,
        { pending: 1, oldestDue: '2030-02-28T10:00:00.000Z', caughtUp: false },
        'billed by the worker, not the request',
      );
      // The worker, as `serve` runs it, catches up; the vendor polls its clock until it has.
      const errors: unknown[] = [];
      const worker = startBillingWorker(t.services, { intervalMs: 3600_000, onError: (err) => errors.push(err) });
      for (let i = 0; !(await v.api('/v1/clock')).json.billing.caughtUp; i++) {
        assert.ok(i < 500, 'caught up');
        await new Promise((resume) => setTimeout(resume, 10));
      }
      await worker.stop();
      assert.deepEqual(errors, []);
      assert.equal((await payments(mine)).length, 2, 'renewed once');
      const tx = await listed(mine);
      assert.equal(tx.lastCharge, '2030-02-28T10:00:00.000Z', 'stamped at its scheduled moment');
      assert.equal(tx.nextCharge, '2030-03-31T10:00:00.000Z');
      assert.equal(
        (await other.api('/v1/transactions/customer%40example.com')).json.find((x: any) => x.id === theirs).nextCharge,
        '2030-02-28T10:00:00.000Z',
        "another vendor's sandbox did not move",
      );
      assert.equal((await v.api('/v1/clock')).json.now, '2030-03-01T10:00:00.000Z');

      const back = await v.api('/v1/clock/advance', { body: { to: '2030-02-01T00:00:00.000Z' } });
      assert.equal(back.status, 400);
      assert.match(back.json.message, /only moves forward/);
      assert.equal((await v.api('/v1/clock/advance', { body: { seconds: -5 } })).status, 400);
      assert.equal((await v.api('/v1/clock/advance', { body: { seconds: 'a lot' } })).status, 400);

      // A purchase in the moved sandbox lives in its time: created at sandbox now.
      const later = await v.buy((await product('MONTHLY')).id, { email: 'later@example.com' });
      assert.equal((await listed(later, 'later@example.com')).nextCharge, '2030-04-01T10:00:00.000Z');

      // Real time passing does not double what the moved clock already did; the whole worker runs.
      at('2030-02-28T10:00:00.000Z');
      await t.services.billing.runDue();
      assert.equal((await payments(mine)).length, 2);
      const theirsNow = await other.api(`/v1/transaction/${theirs}`);
      assert.equal(theirsNow.json.entries.length, 2, "the other vendor's subscription renewed in real time");
    });

    test('an upgrade: the old subscription ends, the new one is first charged when the proration runs out', async () => {
      at('2030-04-01T00:00:00.000Z');
      const oldId = await v.buy((await product('MONTHLY', 30)).id, { email: 'up@example.com' });
      at('2030-04-11T00:00:00.000Z');
      const bigger = await product('MONTHLY', 60);
      const link = await v.api(`/v1/customize-product/${bigger.id}`, {
        body: { prices: [{ currency: 'USD', value: 60 }], transactionIdToMigrate: oldId },
      });
      const newId = await v.buy(link.json.customizedProductId, { email: 'up@example.com' });
      assert.equal((await listed(oldId, 'up@example.com')).transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      // 20 of 30 days of $30 left = $20, which buys 10 days at $60 a month: first charge 21 April.
      assert.equal((await listed(newId, 'up@example.com')).nextCharge, '2030-04-21T00:00:00.000Z');
      at('2030-05-01T00:00:00.000Z');
      const report = await run();
      assert.equal(report.renewed, 1, 'the new subscription only; the old one is over');
      const tx = await listed(newId, 'up@example.com');
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(tx.lastCharge, '2030-05-01T00:00:00.000Z');
      assert.equal(tx.nextCharge, '2030-05-21T00:00:00.000Z');
      assert.deepEqual(
        (await payments(newId)).map((e) => e.amountTotal),
        ['60.00'],
      );
      assert.equal((await payments(oldId)).length, 1);
    });

    test('a coupon discounts the first payment only: the renewal is at the full price', async () => {
      const p = await product('MONTHLY', 20);
      await t.services.coupons.create(v.scope(), { productId: p.id, code: 'HALF', percentOff: 50 } as any);
      const id = await v.buy(p.id, { coupon: 'HALF' });
      at('2030-02-28T10:00:00.000Z');
      await run();
      assert.deepEqual(
        (await payments(id)).map((e) => e.amountTotal),
        ['10.00', '20.00'],
      );
    });

    test('an expired customized product is marked expired, its personal data cleared, and its link says so', async () => {
      const p = await product('MONTHLY');
      const res = await v.api(`/v1/customize-product/${p.id}`, {
        body: {
          prices: [{ currency: 'USD', value: 5 }],
          expiresIn: 60,
          userMail: 'someone@example.com',
          payload: 'secret',
        },
      });
      const id = res.json.customizedProductId;
      at('2030-01-31T10:01:00.000Z');
      assert.equal((await run()).expiredOffers, 1);
      const offer = await t.services.store.customizedProducts.find(v.scope(), id);
      assert.equal(offer?.userMail, null);
      assert.equal(offer?.payload, null);
      const page = await fetch(`${t.url}/sandbox/payment/product/${id}`);
      assert.equal(page.status, 410);
      assert.equal((await run()).expiredOffers, 0);
    });
  });
}
