import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { seedDueSubscriptions } from '../../support/due-subscriptions.ts';
import { ROOT, spawnCli } from '../helpers/cli.ts';

/**
 * `opentill worker` on SIGTERM (issue 16): it finishes the batch in flight and exits 0, leaving no
 * charge attempt open and no subscription leased; what it had not claimed is left for the next run.
 * (SIGKILL is test/billing/crash.test.ts: the leases and the reconciler take over there.)
 */
for (const kind of await storeKinds()) {
  describe(`the billing worker on SIGTERM (${kind})`, () => {
    test('drains the batch in flight: every claimed subscription renewed or released, no attempt open, exit 0', async () => {
      const store = await freshDatabase(kind);
      try {
        const total = kind === 'sqlite' ? 40_000 : 20_000;
        const { vendorId } = await seedDueSubscriptions(store.database, total);
        const db = store.database.kysely;
        const renewed = async () =>
          Number(
            (
              await db
                .selectFrom('ledger_entries')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('vendor_id', '=', vendorId)
                .executeTakeFirstOrThrow()
            ).n,
          );
        const { child, exited } = spawnCli(['worker'], {
          OPENTILL_SECRET: 'worker-test-secret-0123456789-0123456789',
          OPENTILL_DATA_DIR: join(ROOT, 'test-artifacts', 'worker-data'),
          BILLING_INTERVAL_SECONDS: '1',
          ...(store.url ? { DATABASE_URL: store.url } : { SQLITE_FILE: store.file! }),
        });
        for (let i = 0; i < 600 && (await renewed()) === 0; i++) await sleep(25);
        child.kill('SIGTERM');
        const result = await exited;
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /SIGTERM or Ctrl-C stops it after the current batch/);

        const done = await renewed();
        assert.ok(done > 0 && done < total, `stopped mid-run: ${done} of ${total} renewed`);
        const open = await db
          .selectFrom('charge_attempts')
          .select('id')
          .where('status', 'in', ['PENDING', 'UNKNOWN'])
          .execute();
        assert.deepEqual(open, [], 'no attempt left open');
        const leased = await db
          .selectFrom('transactions')
          .select('id')
          .where('vendor_id', '=', vendorId)
          .where('billing_lease_until', '>', new Date().toISOString())
          .execute();
        assert.deepEqual(leased, [], 'no subscription left leased');
        const attempts = await db
          .selectFrom('charge_attempts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '=', 'SUCCEEDED')
          .executeTakeFirstOrThrow();
        assert.equal(Number(attempts.n), done, 'one charge per renewal');
      } finally {
        await store.drop();
      }
    });
  });
}
