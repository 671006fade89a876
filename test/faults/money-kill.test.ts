import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { moneyInvariants } from '../helpers/fault-gateway.ts';
import type { ChildJob, MoneyOp } from '../helpers/money-child.ts';
import { runScript } from '../helpers/child-script.ts';

/**
 * Purchases, vaulted charges and refunds in a child process, SIGKILLed at random moments five
 * times and restarted with the same client keys (as a retrying client would), then the reconciler.
 * Afterwards: each key moved money at most once, every movement has one ledger entry, nothing is open.
 */
const CHILD = fileURLToPath(new URL('../helpers/money-child.ts', import.meta.url));
const EACH = 12;
const KILLS = 5;

const runChild = (job: ChildJob) => runScript(CHILD, job);

for (const kind of await storeKinds()) {
  describe(`money paths killed at random moments (${kind})`, () => {
    test(
      `${EACH} purchases, ${EACH} vaulted charges and ${EACH} refunds survive ${KILLS} SIGKILLs`,
      { timeout: 240_000 },
      async () => {
        const store = await freshDatabase(kind);
        const config = loadConfig({
          OPENTILL_SECRET: 'money-child-secret-0123456789-0123456789',
          OPENTILL_DATA_DIR: '/tmp/opentill-money-child',
          LOG_LEVEL: 'silent',
        });
        const services = createServices(config, { database: store.database, payments: { reconcileGraceMs: 0 } });
        try {
          const vendor = await services.catalog.createVendor({ name: 'Killed Often Ltd', email: 'owner@killed.test' });
          const scope = { vendorId: vendor.id, environment: 'sandbox' as const };
          const card = { number: '4242424242424242', expMonth: 12, expYear: 2035 };
          const onetime = await services.catalog.createProduct(scope, {
            name: 'One',
            type: 'ONETIME',
            prices: [{ currency: 'USD', value: 11 }],
          });
          const vaulted = await services.catalog.createProduct(scope, {
            name: 'Card on file',
            type: 'VAULTED',
            prices: [{ currency: 'USD', value: 0 }],
          });
          const ops: MoneyOp[] = [];
          for (let i = 0; i < EACH; i++) {
            ops.push({
              op: 'checkout',
              token: randomBytes(18).toString('base64url'),
              productId: onetime.id,
              email: `buyer${i}@example.com`,
            });
            const method = await services.purchases.purchase(scope, {
              productId: vaulted.id,
              email: `vault${i}@example.com`,
              country: 'US',
              card,
            });
            assert.equal(method.status, 'PAID');
            if (method.status === 'PAID') ops.push({ op: 'vaulted', id: method.transaction.id, key: `charge-${i}` });
            const paid = await services.purchases.purchase(scope, {
              productId: onetime.id,
              email: `refund${i}@example.com`,
              country: 'US',
              card,
            });
            if (paid.status === 'PAID') ops.push({ op: 'refund', id: paid.transaction.id, key: `refund-${i}` });
          }
          const job: ChildJob = { url: store.url, file: store.file, vendorId: vendor.id, ops };

          // Each run is killed after a random number of finished operations plus a few milliseconds.
          const kills: number[] = [];
          for (let tries = 0; kills.length < KILLS && tries < 30; tries++) {
            const run = runChild(job);
            const target = 1 + Math.floor(Math.random() * (ops.length - 1));
            let exited = false;
            void run.exited.then(() => (exited = true));
            while (!exited && run.lines('done') < target) await sleep(2);
            if (exited) continue;
            await sleep(Math.random() * 15);
            run.child.kill('SIGKILL');
            const result = await run.exited;
            // It may have finished its last operations just before the kill: then it ended cleanly.
            if (result.signal !== 'SIGKILL') {
              assert.equal(result.code, 0, result.stderr);
              continue;
            }
            kills.push(run.lines('done'));
          }
          assert.ok(kills.length >= KILLS, `only ${kills.length} kills landed: ${kills.join(', ')}`);
          // The last restart runs to its end; then the reconciler settles what a kill left open.
          const last = await runChild(job).exited;
          assert.equal(last.code, 0, last.stderr);
          await services.reconciler.run();

          const inv = await moneyInvariants(store.database);
          assert.deepEqual(inv.chargesWithoutOneEntry, [], 'every charge has one ledger entry');
          assert.deepEqual(inv.refundsWithoutOneEntry, [], 'every refund has one ledger entry');
          assert.deepEqual(inv.entriesWithoutMovement, [], 'no entry without money moved');
          assert.deepEqual(inv.open, [], 'nothing left open');
          for (let i = 0; i < EACH; i++) {
            const bought = await services.transactions.listByEmail(scope, `buyer${i}@example.com`);
            assert.equal(bought.length, 1, `buyer${i} bought once`);
          }
          const entries = await store.database.kysely
            .selectFrom('ledger_entries')
            .select(['type', 'transaction_id'])
            .where('vendor_id', '=', vendor.id)
            .execute();
          const count = (type: string) => entries.filter((e) => e.type === type).length;
          assert.equal(count('VAULTED_PAYMENT'), EACH, 'each vaulted method charged once');
          assert.equal(count('ONETIME_PAYMENT_REFUND'), EACH, 'each refund made once');
          assert.equal(count('ONETIME_PAYMENT'), 2 * EACH, 'each purchase paid once');
          process.stdout.write(
            `# ${kind}: ${KILLS} kills after ${kills.join(', ')} of ${ops.length} operations; ${inv.charges} charges, ${inv.refunds} refunds, all booked once\n`,
          );
        } finally {
          await services.close();
          await store.drop();
        }
      },
    );
  });
}
