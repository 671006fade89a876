import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startBillingWorker } from '../../src/worker.ts';
import { catchUpUnderLoad, percentile } from '../../support/sandbox-catch-up.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Moving a sandbox clock far ahead must not hold up anyone else (docs/decisions.md, "15. Billing"):
 * the move bills nothing in the request, the billing worker catches up in short runs taking turns
 * with real time and other sandboxes, and the vendor reads its progress on the clock.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`sandbox clock isolation (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind);
    });
    after(() => t.close());

    const clock = async () => (await v.api('/v1/clock')).json;
    const dailySubscription = async () =>
      v.buy((await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'DAILY' })).id);

    test('a move answers before any billing; the worker, woken by it, catches up in short runs one after another and the clock shows the progress', async () => {
      v = await t.newVendor();
      const subscription = await dailySubscription();
      const { nextCharge: firstDue } = (await v.api(`/v1/transactions/customer%40example.com`)).json[0];

      // An hour between runs: only the move's wake-up and the runs that follow at once can do this work.
      let runs = 0;
      const billing = {
        ...t.services.billing,
        runDue: (options?: Parameters<typeof t.services.billing.runDue>[0]) => (
          runs++,
          t.services.billing.runDue(options)
        ),
      };
      const errors: unknown[] = [];
      let firstRun!: () => void;
      const ranOnce = new Promise<void>((resolve) => (firstRun = resolve));
      const worker = startBillingWorker(
        { billing, sandboxClock: t.services.sandboxClock, reconciler: t.services.reconciler },
        { intervalMs: 3600_000, batchesPerClock: 4, onReport: () => firstRun(), onError: (err) => errors.push(err) },
      );
      try {
        await ranOnce;
        const moved = await v.api('/v1/clock/advance', { body: { seconds: 366 * 86400 } });
        assert.equal(moved.status, 200, moved.text);
        assert.equal(moved.json.offsetSeconds, 366 * 86400);
        assert.deepEqual(
          moved.json.billing,
          { pending: 1, oldestDue: firstDue, caughtUp: false },
          'the year of renewals is still to do',
        );

        const seen: string[] = [];
        let reading = await clock();
        for (let i = 0; !reading.billing.caughtUp; i++) {
          assert.ok(i < 3000, `caught up within a minute: ${JSON.stringify(reading)}`);
          seen.push(reading.billing.oldestDue);
          await sleep(20);
          reading = await clock();
        }
        assert.deepEqual(reading.billing, { pending: 0, oldestDue: null, caughtUp: true });
        assert.deepEqual(seen, [...seen].sort(), 'the oldest step due only moves forward');
        assert.ok(
          runs > 366 / 4,
          `a run does at most 4 batches per clock, and the next follows at once (${runs} runs)`,
        );
      } finally {
        await worker.stop();
      }
      assert.deepEqual(errors, []);

      const tx = await v.api(`/v1/transaction/${subscription}`);
      assert.equal(
        tx.json.entries.filter((e: { type: string }) => e.type === 'SUBSCRIPTION_PAYMENT').length,
        1 + 366,
        'the first payment and a renewal each day',
      );
      const listed = (await v.api(`/v1/transactions/customer%40example.com`)).json[0];
      assert.equal(
        listed.lastCharge,
        new Date(Date.parse(firstDue) + 365 * DAY).toISOString(),
        'the last renewal stamped at its scheduled moment',
      );
      assert.equal(listed.nextCharge, new Date(Date.parse(firstDue) + 366 * DAY).toISOString());
    });

    test('a clock moves at most 366 days per call and at most 20 years ahead; a refused move changes nothing', async () => {
      v = await t.newVendor();
      const tooFar = await v.api('/v1/clock/advance', { body: { seconds: 366 * 86400 + 1 } });
      assert.equal(tooFar.status, 400);
      assert.match(tooFar.json.message, /at most 366 days per call/);
      const tooFarTo = await v.api('/v1/clock/advance', {
        body: { to: new Date(Date.now() + 400 * DAY).toISOString() },
      });
      assert.equal(tooFarTo.status, 400);
      assert.match(tooFarTo.json.message, /at most 366 days per call/);
      assert.equal((await clock()).offsetSeconds, 0);

      for (let year = 0; year < 19; year++)
        assert.equal((await v.api('/v1/clock/advance', { body: { seconds: 366 * 86400 } })).status, 200);
      const beyond = await v.api('/v1/clock/advance', { body: { seconds: 366 * 86400 } });
      assert.equal(beyond.status, 400);
      assert.match(beyond.json.message, /at most 20 years ahead/);
      assert.equal((await clock()).offsetSeconds, 19 * 366 * 86400);
      const last = await v.api('/v1/clock/advance', { body: { seconds: (20 * 365 - 19 * 366) * 86400 } });
      assert.equal(last.status, 200, 'up to exactly 20 years');
      assert.deepEqual(
        last.json.billing,
        { pending: 0, oldestDue: null, caughtUp: true },
        'nothing to bill in a sandbox without subscriptions',
      );
    });
  });

  // Two years (730 renewals, one batch each, two clock moves) show the isolation as the cap of twenty
  // would: each renewal is its own batch, so the readers meet the same runs, only fewer of them. The
  // full twenty years are measured by `npm run bench:clock-isolation`, outside the suite's time. (Five
  // years took 19 s on PostgreSQL, the longest test of the round that has the machine alone.)
  const YEARS = 2;
  test(`while one vendor's sandbox catches up ${YEARS} years of a daily subscription, another vendor's reads all answer and the catch-up finishes (${kind})`, async (tc) => {
    const run = await catchUpUnderLoad(kind, { years: YEARS, connections: 2, gapMs: 20 });
    assert.deepEqual(run.workerErrors, []);
    assert.deepEqual(run.failures, [], "every one of the other vendor's reads answered 200");
    // Each of the two readers waits 20 ms between reads: a read held up for the catch-up would leave far fewer.
    assert.ok(
      run.reads.length >= 50 && run.reads.length >= run.catchUpMs / 100,
      `the other vendor kept reading throughout (${run.reads.length} reads in ${run.catchUpMs.toFixed(0)} ms)`,
    );
    assert.ok(
      run.advanceBilling.every((b) => !b.caughtUp && b.pending === 1),
      'each move answered with the billing still due',
    );
    assert.equal(
      run.payments,
      1 + YEARS * 365,
      `the first payment and one renewal for each of the ${YEARS * 365} days`,
    );
    assert.ok(run.nextCharge && run.nextCharge > run.sandboxNow, 'nothing is left due');
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    tc.diagnostic(
      `${kind}: other vendor's reads during the catch-up: ${run.reads.length}, p50 ${ms(percentile(run.reads, 0.5))}, p99 ${ms(percentile(run.reads, 0.99))}, ` +
        `max ${ms(Math.max(...run.reads))}; slowest move ${ms(Math.max(...run.advances))}; ${YEARS * 365} renewals caught up in ${(run.catchUpMs / 1000).toFixed(1)} s`,
    );
  });
}
