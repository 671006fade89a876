import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WebhookEvent } from '../../src/domain/ports.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { webhookWorld } from '../helpers/webhook-world.ts';

/**
 * The delivery log keeps a settled event 30 days (docs/decisions.md §27): the server's hourly purge
 * forgets delivered and given-up events older than that, and never one still waiting, however old.
 */
const DAY = 24 * 60 * 60 * 1000;

for (const kind of await storeKinds()) {
  describe(`webhook log purge (${kind})`, () => {
    test('delivered and given-up events past 30 days go; waiting ones and younger ones stay', async () => {
      const w = await webhookWorld(kind);
      try {
        const now = w.clock.now().getTime();
        const event = (id: string, status: WebhookEvent['status'], ageMs: number): WebhookEvent => ({
          id,
          endpointId: 'wh_ep_purge',
          scope: w.scope(),
          transactionId: null,
          seq: 0,
          kind: 'TEST',
          payload: '{}',
          status,
          tries: 1,
          nextTryAt: '',
          giveUpAt: '',
          lastStatus: status === 'DELIVERED' ? 200 : 500,
          lastError: null,
          lastTryAt: null,
          createdAt: new Date(now - ageMs).toISOString(),
          deliveredAt: null,
        });
        await w.store.webhooks.insertEvents([
          event('evt_old_delivered', 'DELIVERED', 30 * DAY + 1000),
          event('evt_old_failed', 'FAILED', 31 * DAY),
          event('evt_old_waiting', 'PENDING', 40 * DAY),
          event('evt_young_delivered', 'DELIVERED', 30 * DAY - 1000),
        ]);
        assert.equal(await w.services.webhooks.purgeOld(), 2);
        const left = (await w.events()).map((e) => e.id).sort();
        assert.deepEqual(left, ['evt_old_waiting', 'evt_young_delivered']);
      } finally {
        await w.close();
      }
    });
  });
}
