import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Pause and resume through billing (docs/decisions.md §41), to the millisecond: a pause takes effect at
 * the end of the paid period, nothing is charged while it lasts, and a resume (by hand or at its date)
 * starts a new period that is charged at once. Customers are in the US without a ZIP code: no tax.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`pausing a subscription through billing (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-10T08:00:00.000Z'));
    const script = { decline: 0 };
    let t: TestApp;
    let v: TestVendor;
    const network = scriptedSandbox(async (request, real): Promise<ChargeResult> => {
      if (script.decline > 0) {
        script.decline--;
        return { status: 'DECLINED', code: 'card_declined', message: 'The card was declined.', permanent: false };
      }
      return real.charge(request);
    });

    before(async () => {
      t = await startTestApp(kind, { clock, gateways: { sandbox: network.gateway } });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(() => t.close());
    beforeEach(async () => {
      script.decline = 0;
      v = await t.newVendor();
    });

    const at = (iso: string) => clock.set(new Date(iso));
    const run = () => t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
    const subscribe = async () =>
      v.buy(
        (
          await v.product({
            type: 'SUBSCRIPTION',
            chargeFrequency: 'MONTHLY',
            prices: [{ currency: 'USD', value: 20 }],
          })
        ).id,
      );
    const listed = async (id: string) => {
      const res = await v.api('/v1/transactions/customer%40example.com');
      assert.equal(res.status, 200, res.text);
      return (res.json as any[]).find((tx) => tx.id === id);
    };
    const payments = async (id: string) => {
      const res = await v.api(`/v1/transaction/${id}`);
      assert.equal(res.status, 200, res.text);
      return (res.json.entries as Array<{ type: string; createDate: string }>)
        .filter((e) => e.type === 'SUBSCRIPTION_PAYMENT')
        .map((e) => e.createDate);
    };
    const pause = (id: string, body?: object) => v.api(`/v1/pause-subscription/${id}`, { method: 'POST', body });
    const resume = (id: string) => v.api(`/v1/resume-subscription/${id}`, { method: 'POST' });

    test('a pause with a resume date takes effect at the end of the paid period, charges nothing until the date, then starts a new period charged at once', async () => {
      at('2030-01-10T08:00:00.000Z');
      const id = await subscribe();
      at('2030-01-20T00:00:00.000Z');
      const paused = await pause(id, { resumeAt: '2030-04-05T12:00:00Z' });
      assert.equal(paused.status, 200, paused.text);
      assert.deepEqual(paused.json, {
        id,
        transactionStatus: 'SUBSCRIPTION_STATUS_ACTIVE',
        changed: true,
        nextCharge: '2030-04-05T12:00:00.000Z',
        pause: { startsAt: '2030-02-10T08:00:00.000Z', resumesAt: '2030-04-05T12:00:00.000Z' },
      });
      for (const when of ['2030-02-10T08:00:00.000Z', '2030-03-10T08:00:00.000Z', '2030-04-05T11:59:59.999Z']) {
        at(when);
        assert.equal((await run()).renewed, 0, `nothing charged at ${when}`);
      }
      const during = await listed(id);
      assert.equal(during.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(during.nextCharge, '2030-04-05T12:00:00.000Z');
      assert.deepEqual(during.pause, paused.json.pause);

      at('2030-04-05T12:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      at('2030-05-05T11:59:59.999Z');
      assert.equal((await run()).renewed, 0);
      at('2030-05-05T12:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      const tx = await listed(id);
      assert.equal(tx.lastCharge, '2030-05-05T12:00:00.000Z');
      assert.equal(tx.nextCharge, '2030-06-05T12:00:00.000Z');
      assert.deepEqual(await payments(id), [
        '2030-01-10T08:00:00.000Z',
        '2030-04-05T12:00:00.000Z',
        '2030-05-05T12:00:00.000Z',
      ]);
    });

    test('an open-ended pause charges nothing; resumed by hand, a new period starts and is charged at once, on a new anchor', async () => {
      at('2030-01-10T08:00:00.000Z');
      const id = await subscribe();
      at('2030-02-01T00:00:00.000Z');
      const paused = await pause(id);
      assert.equal(paused.status, 200, paused.text);
      assert.equal(paused.json.nextCharge, null);
      assert.deepEqual(paused.json.pause, { startsAt: '2030-02-10T08:00:00.000Z', resumesAt: null });
      at('2030-06-01T00:00:00.000Z');
      assert.equal((await run()).renewed, 0);
      at('2030-06-03T09:15:00.250Z');
      const resumed = await resume(id);
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.json.changed, true);
      assert.equal(resumed.json.nextCharge, '2030-06-03T09:15:00.250Z');
      assert.deepEqual(resumed.json.pause, {
        startsAt: '2030-02-10T08:00:00.000Z',
        resumesAt: '2030-06-03T09:15:00.250Z',
      });
      assert.equal((await run()).renewed, 1);
      const tx = await listed(id);
      assert.equal(tx.lastCharge, '2030-06-03T09:15:00.250Z');
      assert.equal(tx.nextCharge, '2030-07-03T09:15:00.250Z');
      assert.deepEqual(await payments(id), ['2030-01-10T08:00:00.000Z', '2030-06-03T09:15:00.250Z']);
      const again = await resume(id);
      assert.deepEqual([again.status, again.json.changed], [200, false]);
    });

    test('a resume asked before the pause took effect calls it off: the old schedule, month ends included, goes on', async () => {
      at('2030-01-31T10:00:00.000Z');
      const id = await subscribe();
      assert.equal((await listed(id)).nextCharge, '2030-02-28T10:00:00.000Z');
      at('2030-02-05T00:00:00.000Z');
      assert.equal((await pause(id, { resumeAt: '2030-05-01T00:00:00Z' })).status, 200);
      const calledOff = await resume(id);
      assert.equal(calledOff.json.changed, true);
      assert.equal(calledOff.json.nextCharge, '2030-02-28T10:00:00.000Z');
      assert.equal(calledOff.json.pause, null);
      at('2030-02-28T10:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      // Counted from 31 January still: 31 March, not 28 March.
      assert.equal((await listed(id)).nextCharge, '2030-03-31T10:00:00.000Z');
    });

    test('a subscription whose renewal is failing cannot be paused; once the retry is paid it can, and a declined resume charge is retried from the resume date', async () => {
      at('2030-01-10T08:00:00.000Z');
      const id = await subscribe();
      script.decline = 1;
      at('2030-02-10T08:00:00.000Z');
      assert.equal((await run()).declined, 1);
      const refused = await pause(id);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.error, 'INVALID_STATE');
      assert.match(refused.json.message, /dunning/);
      assert.equal((await listed(id)).pause, null);
      at('2030-02-11T08:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      assert.equal((await pause(id, { resumeAt: '2030-05-01T00:00:00Z' })).status, 200);
      script.decline = 1;
      at('2030-05-01T00:00:00.000Z');
      assert.equal((await run()).declined, 1);
      assert.equal((await listed(id)).nextCharge, new Date(Date.parse('2030-05-01T00:00:00.000Z') + DAY).toISOString());
      at('2030-05-02T00:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      assert.equal((await listed(id)).nextCharge, '2030-06-01T00:00:00.000Z');
    });

    test('cancelling before the pause took effect ends the subscription at the end of its paid period; during the pause, at once with nothing charged', async () => {
      at('2030-01-10T08:00:00.000Z');
      const before = await subscribe();
      const during = await subscribe();
      at('2030-01-20T00:00:00.000Z');
      assert.equal((await pause(before, { resumeAt: '2030-04-01T00:00:00Z' })).status, 200);
      assert.equal((await pause(during, { resumeAt: '2030-04-01T00:00:00Z' })).status, 200);
      const early = await v.api(`/v1/cancel-subscription/${before}`, { method: 'POST' });
      assert.equal(early.json.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      let tx = await listed(before);
      assert.equal(tx.nextCharge, '2030-02-10T08:00:00.000Z');
      assert.equal(tx.pause, null);

      at('2030-02-10T08:00:00.000Z');
      assert.equal((await run()).ended, 1);
      assert.equal((await listed(before)).transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      at('2030-03-01T00:00:00.000Z');
      const late = await v.api(`/v1/cancel-subscription/${during}`, { method: 'POST' });
      assert.equal(late.json.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      tx = await listed(during);
      assert.equal(tx.nextCharge, null);
      at('2030-04-01T00:00:00.000Z');
      const report = await run();
      assert.deepEqual([report.renewed, report.declined], [0, 0]);
      assert.deepEqual(await payments(before), ['2030-01-10T08:00:00.000Z']);
      assert.deepEqual(await payments(during), ['2030-01-10T08:00:00.000Z']);
    });

    test('a yearly subscription paused at its period end gets no renewal notice for that date, and one for the resume charge', async () => {
      at('2030-01-10T08:00:00.000Z');
      const yearly = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'YEARLY',
        prices: [{ currency: 'USD', value: 200 }],
      });
      const id = await v.buy(yearly.id);
      assert.equal((await pause(id, { resumeAt: '2031-06-01T00:00:00Z' })).status, 200);
      const notices = async (now: string) =>
        (
          await t.services.store.customerEmails.noticesDue({
            now,
            trialUntil: now,
            yearlyUntil: new Date(Date.parse(now) + 7 * DAY).toISOString(),
            sandboxVendorId: undefined,
            limit: 500,
          })
        ).filter((n) => n.transactionId === id);
      assert.deepEqual(await notices('2031-01-05T08:00:00.000Z'), [], 'none for the date it pauses');
      assert.deepEqual(
        (await notices('2031-05-28T00:00:00.000Z')).map((n) => [n.kind, n.nextCharge]),
        [['RENEWAL_UPCOMING', '2031-06-01T00:00:00.000Z']],
      );
    });

    test("moving the vendor's sandbox clock past a resume date resumes and charges at the resume date", async () => {
      at('2030-01-10T08:00:00.000Z');
      const id = await subscribe();
      assert.equal((await pause(id, { resumeAt: '2030-03-01T00:00:00Z' })).status, 200);
      const moved = await v.api('/v1/clock/advance', { body: { seconds: 60 * 86400 } });
      assert.equal(moved.status, 200, moved.text);
      await t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
      assert.deepEqual(await payments(id), ['2030-01-10T08:00:00.000Z', '2030-03-01T00:00:00.000Z']);
      assert.equal((await listed(id)).nextCharge, '2030-04-01T00:00:00.000Z');
    });
  });
}
