import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * POST /v1/pause-subscription and /v1/resume-subscription (docs/decisions.md §41): retried or sent 20
 * at once, one request changes the subscription and the others answer what it is; bad input is a 4xx
 * that changes nothing; a renewal being charged refuses a pause, so no charge lands in a paused period.
 */
for (const kind of await storeKinds()) {
  describe(`pause and resume over the API (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-10T08:00:00.000Z'));
    /** While set, sandbox charges wait for it: a renewal held between its claim and its answer. */
    let gate: Promise<void> | undefined;
    let charges = 0;
    let t: TestApp;
    let v: TestVendor;
    const network = scriptedSandbox(async (request, real): Promise<ChargeResult> => {
      charges++;
      if (gate) await gate;
      return real.charge(request);
    });

    before(async () => {
      t = await startTestApp(kind, { clock, gateways: { sandbox: network.gateway } });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(() => t.close());
    beforeEach(async () => {
      clock.set(new Date('2030-01-10T08:00:00.000Z'));
      gate = undefined;
      v = await t.newVendor();
    });

    const at = (iso: string) => clock.set(new Date(iso));
    const run = () => t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
    const product = (input: object = {}) =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 20 }],
        ...input,
      });
    const subscribe = async () => v.buy((await product()).id);
    const read = async (id: string) => (await v.api(`/v1/transaction/${id}`)).json;
    const listed = async (id: string) =>
      ((await v.api('/v1/transactions/customer%40example.com')).json as any[]).find((tx) => tx.id === id);
    const pause = (id: string, body?: object, headers?: Record<string, string>) =>
      v.api(`/v1/pause-subscription/${id}`, { method: 'POST', body, headers });
    const resume = (id: string) => v.api(`/v1/resume-subscription/${id}`, { method: 'POST' });

    test('20 simultaneous pauses: one pauses, the other 19 answer 200 with changed false and the same pause', async () => {
      const id = await subscribe();
      at('2030-01-20T00:00:00.000Z');
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => pause(id, { resumeAt: '2030-03-01T00:00:00Z' })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(20).fill(200),
        answers.map((a) => a.text).join('\n'),
      );
      assert.equal(answers.filter((a) => a.json.changed).length, 1);
      for (const a of answers)
        assert.deepEqual(a.json.pause, { startsAt: '2030-02-10T08:00:00.000Z', resumesAt: '2030-03-01T00:00:00.000Z' });
      assert.equal((await listed(id)).nextCharge, '2030-03-01T00:00:00.000Z');
    });

    test('20 simultaneous resumes of a pause in effect: one resumes, and the new period is charged exactly once', async () => {
      const id = await subscribe();
      at('2030-01-20T00:00:00.000Z');
      assert.equal((await pause(id)).status, 200);
      at('2030-03-03T03:03:03.003Z');
      const before = charges;
      const answers = await Promise.all(Array.from({ length: 20 }, () => resume(id)));
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(20).fill(200),
      );
      assert.equal(answers.filter((a) => a.json.changed).length, 1);
      await Promise.all([run(), run()]);
      assert.equal(charges - before, 1);
      const tx = await listed(id);
      assert.equal(tx.lastCharge, '2030-03-03T03:03:03.003Z');
      assert.equal(tx.nextCharge, '2030-04-03T03:03:03.003Z');
    });

    test('20 simultaneous pauses and resumes mixed: whatever wins, the subscription is either paused or charged once per period', async () => {
      const id = await subscribe();
      at('2030-01-20T00:00:00.000Z');
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? pause(id) : resume(id))));
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(20).fill(200),
      );
      const tx = await listed(id);
      if (tx.pause) assert.equal(tx.nextCharge, null);
      else assert.equal(tx.nextCharge, '2030-02-10T08:00:00.000Z');
      at('2030-02-10T08:00:00.000Z');
      const before = charges;
      await run();
      assert.equal(charges - before, tx.pause ? 0 : 1);
    });

    test('a retry with the same Idempotency-Key replays the first answer', async () => {
      const id = await subscribe();
      const first = await pause(id, { resumeAt: '2030-05-01T00:00:00Z' }, { 'idempotency-key': 'pause-1' });
      const again = await pause(id, { resumeAt: '2030-05-01T00:00:00Z' }, { 'idempotency-key': 'pause-1' });
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.json, first.json);
      assert.equal(first.json.changed, true);
    });

    test('bad input is a 4xx {error, message} that changes nothing', async () => {
      const id = await subscribe();
      const onetime = await v.buy((await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] })).id);
      const cases: Array<[Promise<any>, number, string]> = [
        [pause(id, { resumeAt: 'next tuesday' }), 400, 'INVALID_INPUT'],
        [pause(id, { resumeAt: '2030-02-10T08:00:00.000Z' }), 400, 'INVALID_INPUT'],
        [pause(id, { resumeAt: 5 }), 400, 'INVALID_INPUT'],
        [pause(id, { resumeAt: '2030-05-01T00:00:00Z', extra: 1 }), 400, 'INVALID_INPUT'],
        [pause(onetime), 400, 'INVALID_STATE'],
        [resume(onetime), 400, 'INVALID_STATE'],
        [pause('TC-TR_0000'), 404, 'NOT_FOUND'],
        [resume('TC-TR_0000'), 404, 'NOT_FOUND'],
      ];
      for (const [answer, status, error] of cases) {
        const res = await answer;
        assert.equal(res.status, status, res.text);
        assert.equal(res.json.error, error, res.text);
        assert.equal(typeof res.json.message, 'string');
      }
      const other = await t.newVendor('Other');
      const foreign = await other.api(`/v1/pause-subscription/${id}`, { method: 'POST' });
      assert.equal(foreign.status, 404);
      const tx = await listed(id);
      assert.equal(tx.pause, null);
      assert.equal(tx.nextCharge, '2030-02-10T08:00:00.000Z');
    });

    test('a trial, a subscription cancelled at period end and a cancelled one cannot be paused', async () => {
      const trial = await v.buy((await product({ trialDays: 7 })).id);
      const pending = await subscribe();
      await v.api(`/v1/cancel-subscription/${pending}`, { method: 'POST' });
      for (const id of [trial, pending]) {
        const res = await pause(id);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.error, 'INVALID_STATE');
      }
    });

    test('a pause asked while its renewal is being charged is refused; the renewal is booked, and a pause after it starts at the next period end', async () => {
      const id = await subscribe();
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      at('2030-02-10T08:00:00.000Z');
      const asked = charges;
      const running = run();
      while (charges === asked) await new Promise((resolve) => setImmediate(resolve));
      // The claim committed its attempt and the gateway is being asked; even a clock a moment earlier sees it.
      at('2030-02-10T07:59:59.999Z');
      const refused = await pause(id, { resumeAt: '2030-06-01T00:00:00Z' });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.error, 'INVALID_STATE');
      release();
      gate = undefined;
      assert.equal((await running).renewed, 1);
      assert.equal((await read(id)).pause, null);
      at('2030-02-11T00:00:00.000Z');
      const paused = await pause(id, { resumeAt: '2030-06-01T00:00:00Z' });
      assert.equal(paused.status, 200, paused.text);
      assert.equal(paused.json.pause.startsAt, '2030-03-10T08:00:00.000Z');
    });

    test('a pause committed a moment before the renewal falls due leaves nothing for billing to charge', async () => {
      const id = await subscribe();
      at('2030-02-10T07:59:59.999Z');
      assert.equal((await pause(id)).status, 200);
      at('2030-02-10T08:00:00.000Z');
      const before = charges;
      const report = await run();
      assert.deepEqual([report.renewed, charges - before], [0, 0]);
      assert.equal((await read(id)).pause.startsAt, '2030-02-10T08:00:00.000Z');
    });

    test('GET /v1/transaction shows a paused subscription as SUBSCRIPTION_STATUS_ACTIVE with its pause; a one-time payment has no pause field', async () => {
      const id = await subscribe();
      const onetime = await v.buy((await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] })).id);
      assert.equal((await pause(id)).status, 200);
      const tx = await read(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.deepEqual(tx.pause, { startsAt: '2030-02-10T08:00:00.000Z', resumesAt: null });
      assert.equal('pause' in (await read(onetime)), false);
    });
  });
}
