import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { createServices, type Wiring } from '../../src/services.ts';
import { freshDatabase, storeKinds, type StoreKind } from '../../support/databases.ts';
import { runScript } from '../helpers/child-script.ts';
import { TEST_CARD, TEST_SELLER } from '../helpers/test-app.ts';
import type { WebhookChildJob } from '../helpers/webhook-child.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { SECRET } from '../helpers/webhook-world.ts';

/**
 * The webhook worker SIGKILLed while a receiver on loopback fails, hangs and answers out of order
 * (docs/decisions.md §27): once a restarted worker finishes, every event was accepted at least once,
 * the events of each transaction in the order of its changes, every delivery signed, and a second
 * delivery is the same event under the same webhook-id. Killed right after the receiver accepted an
 * event and before the outbox heard, that event goes twice.
 */
const CHILD = fileURLToPath(new URL('../helpers/webhook-child.ts', import.meta.url));
const LEASE_MS = 1500;
const BUYERS = 6;

/** A fresh database whose outbox holds three events (purchase, partial refund, cancel) for each of `BUYERS` subscriptions. */
async function queued(kind: StoreKind, receiver: Receiver) {
  const store = await freshDatabase(kind);
  const config = loadConfig({
    OPENTILL_SECRET: SECRET,
    OPENTILL_DATA_DIR: '/tmp/opentill-webhook-child',
    LOG_LEVEL: 'silent',
  });
  const services: Wiring = createServices(config, {
    database: store.database,
    gateways: { sandbox: sandboxGateway(store.database.kysely, () => systemClock.now()) },
  });
  const created = await services.catalog.createVendor({ name: 'Killed Hooks Ltd', email: 'owner@killed.test' });
  await services.catalog.updateVendorSettings(created.id, TEST_SELLER('Killed Hooks Ltd'));
  const scope = { vendorId: created.id, environment: 'sandbox' as const };
  const { secret } = await services.webhooks.add(scope, `${receiver.url}/hooks`);
  receiver.useSecret(secret);
  const product = await services.catalog.createProduct(scope, {
    name: 'Monthly',
    type: 'SUBSCRIPTION',
    chargeFrequency: 'MONTHLY',
    prices: [{ currency: 'USD', value: 20 }],
  } as never);
  for (let i = 0; i < BUYERS; i++) {
    const bought = await services.purchases.purchase(scope, {
      productId: product.id,
      email: `b${i}@example.com`,
      country: 'US',
      card: TEST_CARD,
    });
    assert.equal(bought.status, 'PAID');
    const id = bought.status === 'PAID' ? bought.transaction.id : '';
    await services.refunds.refund(scope, id, { request: { amount: 1 + i } });
    await services.transactions.cancel(scope, id, 'CUSTOMER');
  }
  const events = async () => (await services.webhooks.log(scope, { limit: 1000 })).reverse();
  return {
    job: (extra: Partial<WebhookChildJob> = {}): WebhookChildJob => ({
      url: store.url,
      file: store.file,
      leaseMs: LEASE_MS,
      ...extra,
    }),
    events,
    async close() {
      await services.close().catch(() => {});
      await store.drop();
    },
  };
}

type World = Awaited<ReturnType<typeof queued>>;

/** Runs workers after the killed ones (each after the lease ran out) until every event is delivered. */
async function finish(world: World, extra: Partial<WebhookChildJob> = {}) {
  for (let run = 0; run < 30; run++) {
    if ((await world.events()).every((e) => e.status === 'DELIVERED')) return;
    await sleep(LEASE_MS + 100);
    const { code, stderr } = await runScript(CHILD, world.job(extra)).exited;
    assert.equal(code, 0, stderr);
  }
  assert.fail(`not all delivered: ${JSON.stringify((await world.events()).map((e) => [e.status, e.lastError]))}`);
}

/** Every event accepted at least once, each transaction's in order, each delivery signed; a duplicate is the same event. */
async function assertDelivered(world: World, receiver: Receiver) {
  const events = await world.events();
  assert.equal(events.length, BUYERS * 3);
  const accepted = receiver.accepted();
  for (const r of receiver.received) {
    assert.ok(r.verified, 'every delivery verifies with standardwebhooks');
    assert.equal(r.headers['webhook-id'], r.json.id);
  }
  for (const e of events)
    assert.ok(
      accepted.some((r) => r.json.id === e.id),
      `${e.id} (${e.kind}) accepted`,
    );
  const seqOf = new Map(events.map((e) => [e.id, e.seq]));
  const byTransaction = new Map<string, number[]>();
  for (const r of accepted) {
    const seqs = byTransaction.get(r.json.data.id) ?? [];
    seqs.push(seqOf.get(r.json.id)!);
    byTransaction.set(r.json.data.id, seqs);
  }
  for (const [id, seqs] of byTransaction)
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      `${id}: accepted in the order of its changes`,
    );
  const bodies = new Map<string, string>();
  for (const r of accepted) {
    const first = bodies.get(r.json.id);
    if (first === undefined) bodies.set(r.json.id, r.body);
    else assert.equal(r.body, first, 'a second delivery is the same event');
  }
  return accepted.length - events.length;
}

const kinds = await storeKinds();
describe('the webhook worker killed', { concurrency: true }, () => {
  for (const kind of kinds) {
    describe(`the webhook worker killed (${kind})`, () => {
      test(
        'killed after the receiver accepted an event and before the outbox heard, that event goes twice under one id',
        { timeout: 90_000 },
        async () => {
          const receiver = await startReceiver();
          const world = await queued(kind, receiver);
          try {
            // One try at a time, with time enough for an answer on a busy machine: the kill's window is the only way to a second delivery.
            const job = world.job({ killAfterAccept: 2, concurrency: 1, timeoutMs: 20_000 });
            assert.equal((await runScript(CHILD, job).exited).signal, 'SIGKILL');
            await finish(world);
            const extra = await assertDelivered(world, receiver);
            assert.equal(extra, 1, 'exactly the event in the window');
            const ids = receiver.accepted().map((r) => r.json.id as string);
            const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
            assert.equal(twice.length, 1);
          } finally {
            await world.close();
            await receiver.close();
          }
        },
      );

      test(
        'killed at random moments while a receiver fails, hangs and reorders: every event at least once, in order per transaction',
        { timeout: 180_000 },
        async (t) => {
          // Fails one try in five, hangs one in ten, and answers after up to 60 ms, so tries finish out of order.
          const receiver = await startReceiver(() => {
            const roll = Math.random();
            if (roll < 0.2) return { status: 500, delayMs: Math.random() * 60 };
            if (roll < 0.3) return 'hang';
            return { status: 200, delayMs: Math.random() * 60 };
          });
          const world = await queued(kind, receiver);
          try {
            let kills = 0;
            for (let round = 0; round < 4; round++) {
              const run = runScript(CHILD, world.job({ pauseMs: 40 }));
              while (run.lines('tried') === 0 && run.child.exitCode === null) await sleep(5);
              await sleep(Math.random() * 150);
              if (run.child.kill('SIGKILL')) kills++;
              await run.exited;
              await sleep(LEASE_MS + 100);
            }
            await finish(world);
            const extra = await assertDelivered(world, receiver);
            t.diagnostic(`${kills} kills, ${extra} duplicates, ${receiver.received.length} tries`);
            assert.ok(extra <= kills * 3, `${extra} duplicates from ${kills} kills of a worker trying 3 at once`);
          } finally {
            await world.close();
            await receiver.close();
          }
        },
      );
    });
  }
});
