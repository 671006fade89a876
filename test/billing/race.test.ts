import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { billingTotals, seedDueSubscriptions, SEEDED_PRICE_MINOR } from '../../support/due-subscriptions.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

/**
 * Two worker processes on one PostgreSQL database over the same 10,000 due subscriptions: they
 * share the work (FOR UPDATE SKIP LOCKED and leases) and no subscription is charged twice.
 * On SQLite one worker runs, so this is a PostgreSQL test.
 */
const COUNT = 10_000;

if ((await storeKinds()).includes('postgres')) {
  describe('two billing workers on PostgreSQL', () => {
    test(`${COUNT} due subscriptions, two processes: exactly one charge each`, { timeout: 300_000 }, async () => {
      const store = await freshDatabase('postgres');
      try {
        const { vendorId, dueAt } = await seedDueSubscriptions(store.database, COUNT);
        const env = { BILLING_BATCH_SIZE: '100', BILLING_LEASE_SECONDS: '120' };
        const results = await Promise.all([
          startWorkerProcess(store, env).exited,
          startWorkerProcess(store, env).exited,
        ]);
        const reports = results.map((r) => {
          assert.equal(r.code, 0, r.stderr);
          return JSON.parse(r.stdout) as { renewed: number };
        });
        assert.equal(
          reports[0]!.renewed + reports[1]!.renewed,
          COUNT,
          'between them they renewed each subscription once',
        );
        assert.ok(
          reports.every((r) => r.renewed > 0),
          `both workers took a share: ${reports.map((r) => r.renewed).join(' + ')}`,
        );

        const totals = await billingTotals(store.database, vendorId, dueAt);
        assert.equal(totals.notPaidOnce, 0, 'every subscription has exactly one payment for the period');
        assert.equal(totals.networkNotOnce, 0, 'the payment network charged every subscription exactly once');
        assert.equal(totals.networkCharges, COUNT);
        assert.equal(totals.payments, COUNT);
        assert.equal(totals.ledgerTotalMinor, COUNT * SEEDED_PRICE_MINOR);
        assert.equal(totals.stillDue, 0);
      } finally {
        await store.drop();
      }
    });
  });
}
