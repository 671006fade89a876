import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { billingTotals, seedDueSubscriptions, SEEDED_PRICE_MINOR } from '../../support/due-subscriptions.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

/**
 * A billing run over 10,000 due subscriptions in a child process (`opentill worker --once`),
 * killed with SIGKILL at random points of its work at least five times, then restarted until
 * nothing is due. Afterwards every subscription has exactly one payment for the period, the payment
 * network charged each exactly once, and the ledger total is 10,000 x USD 9.99 to the cent.
 */
const COUNT = 10_000;
const KILLS = 5;

// The two stores at once: each mostly waits (for kills to land, for a killed worker's lease to run out).
const kinds = await storeKinds();
describe('crash safety of billing', { concurrency: true }, () => {
  for (const kind of kinds) {
    describe(`crash safety of billing (${kind})`, () => {
      test(`${COUNT} renewals survive ${KILLS} SIGKILLs at random moments`, { timeout: 600_000 }, async () => {
        const store = await freshDatabase(kind);
        try {
          const { vendorId, dueAt, nextAt } = await seedDueSubscriptions(store.database, COUNT);
          const charged = async () =>
            Number(
              (
                await sql<{ n: number }>`select count(*) as n from sandbox_gateway_charges`.execute(
                  store.database.kysely,
                )
              ).rows[0]!.n,
            );

          // Each run is killed once the payment network has seen a random number of further
          // charges, plus a random few milliseconds: kills land in every phase of a batch.
          const kills: { chargedBefore: number; chargedAtKill: number }[] = [];
          while (kills.length < KILLS) {
            const before = await charged();
            const target = before + 1 + Math.floor(Math.random() * 1200);
            const worker = startWorkerProcess(store, { BILLING_BATCH_SIZE: '200' });
            let exited = false;
            void worker.exited.then(() => (exited = true));
            while (!exited && (await charged()) < target) await sleep(5);
            if (exited) break; // it finished the whole run before the chosen moment
            await sleep(Math.random() * 30);
            worker.child.kill('SIGKILL');
            const result = await worker.exited;
            assert.equal(result.signal, 'SIGKILL', result.stderr);
            kills.push({ chargedBefore: before, chargedAtKill: await charged() });
            await sleep(1100); // the killed worker's lease runs out
          }
          assert.ok(
            kills.length >= KILLS,
            `only ${kills.length} kills landed before the run finished: ${JSON.stringify(kills)}`,
          );
          assert.ok(
            (await billingTotals(store.database, vendorId, dueAt)).stillDue > 0,
            'work was left for the restarts',
          );

          // Restarted until nothing is due (a lease left by the last kill runs out within a second).
          for (let runs = 0; (await billingTotals(store.database, vendorId, dueAt)).stillDue > 0; runs++) {
            assert.ok(runs < 10, 'the restarted worker makes progress');
            const result = await startWorkerProcess(store).exited;
            assert.equal(result.code, 0, result.stderr);
            await sleep(1100);
          }

          const totals = await billingTotals(store.database, vendorId, dueAt);
          assert.equal(totals.subscriptions, COUNT);
          assert.equal(totals.paymentsForPeriod, COUNT);
          assert.equal(totals.payments, COUNT, 'no payment for any other period');
          assert.equal(totals.notPaidOnce, 0, 'every subscription has exactly one payment for the period');
          assert.equal(totals.networkNotOnce, 0, 'the payment network charged every subscription exactly once');
          assert.equal(totals.networkCharges, COUNT);
          assert.equal(totals.ledgerTotalMinor, COUNT * SEEDED_PRICE_MINOR, 'ledger total to the minor unit');
          assert.equal(totals.unsettledAttempts, 0);
          const next = await sql<{
            n: number;
          }>`select count(*) as n from transactions where vendor_id = ${vendorId} and next_charge = ${nextAt}
          and billing_period = 2 and status = 'SUBSCRIPTION_STATUS_ACTIVE' and billing_lease_until is null`.execute(
            store.database.kysely,
          );
          assert.equal(Number(next.rows[0]!.n), COUNT, 'every subscription moved on to its next period');
        } finally {
          await store.drop();
        }
      });
    });
  }
});
