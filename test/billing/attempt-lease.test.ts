import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { pendingAttempt } from '../../src/domain/payments/charge-attempts.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import type { AttemptOf } from '../../src/domain/ports.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { toAttemptRow } from '../../src/store/attempts-store.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The renewal attempt is the lease (docs/decisions.md, the billing worker): a claim writes nothing to
 * the subscription's row; the PENDING attempt committed with it keeps every other claim off that row
 * for BILLING_LEASE_SECONDS (120 here). Another worker's attempt in flight is left alone; a crashed
 * worker's is taken up once it is older than that, under its own id, so the network sees one charge;
 * and a stalled worker's answer, coming after that, changes nothing of what the worker that took it up wrote.
 */
const DAY = 86_400_000;
const LEASE_MS = 120_000;

for (const kind of await storeKinds()) {
  describe(`a renewal's attempt holds its subscription (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-10T10:00:00.000Z'));
    const charged: string[] = [];
    let t: TestApp;
    let v: TestVendor;
    /** The next charge hangs at the gateway until the test answers it: a worker stalled past its lease. */
    let hang: { asked(): void; answer: Promise<ChargeResult> } | undefined;
    const network = scriptedSandbox(async (request, real) => {
      charged.push(request.attemptId);
      const held = hang;
      hang = undefined;
      if (held) {
        held.asked();
        return held.answer;
      }
      return real.charge(request);
    });

    before(async () => {
      t = await startTestApp(kind, { clock, gateways: { sandbox: network.gateway } });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(() => t.close());
    beforeEach(async () => {
      clock.set(new Date('2030-01-10T10:00:00.000Z'));
      v = await t.newVendor();
    });

    const monthly = () =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 20 }],
      } as never);
    const run = () => {
      charged.length = 0;
      return t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
    };
    const row = (id: string) =>
      t.services.database.kysely
        .selectFrom('transactions')
        .select(['billing_period', 'next_charge', 'billing_lease_until'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const attempt = (id: string) => t.services.store.chargeAttempts.findById(id);
    const payments = async (id: string) =>
      (await t.services.transactions.get(v.scope(), id)).entries.filter((e) => e.type === 'SUBSCRIPTION_PAYMENT');

    /** The renewal's attempt as another worker's claim records it: now, not yet settled. */
    async function renewalAttempt(id: string): Promise<AttemptOf<'RENEWAL'>> {
      const period = Number((await row(id)).billing_period);
      return pendingAttempt({
        scope: v.scope(),
        kind: 'RENEWAL',
        key: `renewal:${id}:${period}:0`,
        transactionId: id,
        amountMinor: 2000,
        currency: 'USD',
        now: clock.now(),
        plan: null,
      });
    }
    async function recordedElsewhere(id: string) {
      const held = await renewalAttempt(id);
      await t.services.store.billing.recordAttempts([held]);
      return held;
    }
    const claimable = async () =>
      (
        await t.services.store.billing.claimDue({
          dueBy: clock.now().toISOString(),
          sandboxVendorId: v.vendor.id,
          now: clock.now().toISOString(),
          attemptsSince: new Date(clock.now().getTime() - LEASE_MS).toISOString(),
          limit: 10,
        })
      ).map((due) => due.transaction.id);

    test('a subscription whose renewal another worker is charging is not claimed, and its row is not written', async () => {
      const busy = await v.buy((await monthly()).id);
      const free = await v.buy((await monthly()).id);
      clock.advance(32 * DAY);
      const held = await recordedElsewhere(busy);
      const before = await row(busy);
      assert.deepEqual(await claimable(), [free], 'the claim leaves the held row out');

      const report = await run();
      assert.equal(report.renewed, 1, 'the other subscription renewed');
      assert.equal(charged.length, 1);
      assert.notEqual(charged[0], held.id, 'the held attempt was not charged');
      assert.equal((await payments(free)).length, 2);
      assert.deepEqual(await row(busy), before, 'the held row is as it was: no lease, no new state');
      assert.equal((await attempt(held.id))?.status, 'PENDING');
      assert.equal((await payments(busy)).length, 1);

      clock.advance(LEASE_MS - 1000);
      await run();
      assert.deepEqual(charged, [], 'still held just before the lease runs out');
    });

    if (kind === 'postgres')
      test("two claims of one row at the same moment: the worker that finds the other one's attempt under its key drops the row", async () => {
        const id = await v.buy((await monthly()).id);
        clock.advance(32 * DAY);
        const held = await renewalAttempt(id);
        const before = await row(id);
        // The other worker has recorded its attempt and not committed yet: this worker's claim does
        // not see it, takes the row, and its own insert of that key waits for the other to commit.
        let commit!: () => void;
        const committed = new Promise<void>((resolve) => (commit = resolve));
        let recorded!: () => void;
        const other = t.services.database.kysely.transaction().execute(async (trx) => {
          await trx.insertInto('charge_attempts').values(toAttemptRow(held)).execute();
          recorded();
          await committed;
        });
        await new Promise<void>((resolve) => (recorded = resolve));
        const running = run();
        const waiting = async () =>
          Number(
            (
              await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into "charge_attempts"%'`.execute(
                t.services.database.kysely,
              )
            ).rows[0]!.n,
          );
        let waited: number;
        try {
          for (let i = 0; i < 100 && (await waiting()) === 0; i++) await sleep(50);
          waited = await waiting();
        } finally {
          // Whatever the check finds, the other worker commits: else both would wait for ever.
          commit();
        }
        await other;
        const report = await running;
        assert.equal(waited, 1, "this worker's attempt insert waited on the other worker's key");

        assert.deepEqual(charged, [], "the other worker's charge is not made again");
        assert.equal(report.renewed, 0);
        assert.deepEqual(await row(id), before, 'nor is its row written');
        assert.equal((await attempt(held.id))?.status, 'PENDING');
      });

    test("a crashed worker's attempt is taken up after the lease, under its own id, and booked once", async () => {
      const id = await v.buy((await monthly()).id);
      clock.advance(32 * DAY);
      const held = await recordedElsewhere(id);
      clock.advance(LEASE_MS + 1000);

      const report = await run();
      assert.equal(report.renewed, 1);
      assert.deepEqual(charged, [held.id], 'asked again under the attempt that was recorded');
      assert.equal((await attempt(held.id))?.status, 'SUCCEEDED');
      assert.equal((await payments(id)).length, 2);
      assert.equal((await row(id)).billing_lease_until, null);

      await run();
      assert.deepEqual(charged, [], 'nothing left to charge');
      assert.equal((await payments(id)).length, 2);
    });

    for (const lateAnswer of ['timed out', 'the same charge, succeeded'] as const)
      test(`a worker stalled at the gateway past the lease: the worker that took its attempt up books it; the stalled one's late answer (${lateAnswer}) reopens nothing and books nothing`, async () => {
        const id = await v.buy((await monthly()).id);
        clock.advance(32 * DAY);
        let asked!: () => void;
        let answer!: (result: ChargeResult) => void;
        const reached = new Promise<void>((resolve) => (asked = resolve));
        hang = { asked, answer: new Promise<ChargeResult>((resolve) => (answer = resolve)) };
        charged.length = 0;
        const stalled = t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
        await reached;
        const [held] = charged;
        try {
          clock.advance(LEASE_MS + 1000);
          const report = await run();
          assert.equal(report.renewed, 1, 'taken up after the lease and booked');
          assert.deepEqual(charged, [held], 'under the stalled attempt');
        } finally {
          // The stalled worker's call ends at last: its gateway timed out, so it knows nothing; or the
          // gateway answers it with the charge the other worker booked (one charge per attempt id).
          const reference = (await attempt(held!))?.gatewayReference;
          answer(
            lateAnswer === 'timed out' || !reference
              ? { status: 'UNKNOWN' }
              : { status: 'SUCCEEDED', reference, feeMinor: 0 },
          );
        }
        const booked = { row: await row(id), attempt: await attempt(held!) };
        assert.equal(booked.attempt?.status, 'SUCCEEDED');
        const late = await stalled;
        assert.deepEqual([late.renewed, late.declined, late.failed], [0, 0, 0]);
        assert.equal((await attempt(held!))?.status, 'SUCCEEDED', 'the booked attempt stays settled');
        assert.deepEqual(await row(id), booked.row, 'the subscription as the worker that booked it left it');
        assert.equal((await payments(id)).length, 2, 'booked once');
        clock.advance(20 * 60_000);
        await run();
        assert.deepEqual(charged, [], 'nothing charged again');
        assert.equal((await payments(id)).length, 2);
      });
  });
}
