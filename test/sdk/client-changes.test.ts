import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { ChangedTransaction } from '../../packages/client/src/index.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { recordingFetch, sdkFor, type Sent } from './sdk-world.ts';

/**
 * `for await (const change of client.changes())` against a running opentill: each change is marked
 * processed only after the loop body that received it has finished; a body that throws leaves its
 * change in the feed. And the feed's two spellings (changeStatus/changedStatus,
 * assignEmail/assignedEmail) arrive as one shape.
 */
const marks = (sent: Sent[]) =>
  sent
    .filter((s) => s.method === 'POST' && s.url.includes('/changed-transactions/'))
    .map((s) => s.url.split('/').pop());

for (const kind of await storeKinds()) {
  describe(`the SDK's change feed (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind);
    });
    after(() => t.close());
    const bought = async (v: TestVendor, count: number) => {
      const product = await v.product({ type: 'ONETIME' });
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await v.buy(product.id, { email: `feed-${i}@example.com` }));
      return ids;
    };
    // The feed's own order (oldest change first; two purchases in one millisecond by id), read without
    // marking anything: the order the loop must give. It holds exactly the purchases made.
    const feedOrder = async (v: TestVendor, ids: string[]) => {
      const listed = (await sdkFor(t, v).listChangedTransactions()).changes.map((c) => c.id);
      assert.deepEqual([...listed].sort(), [...ids].sort());
      return listed;
    };

    test('each change is marked processed after its loop body has finished, and the feed is empty after the loop', async () => {
      const v = await t.newVendor();
      const ids = await feedOrder(v, await bought(v, 3));
      const { fetch, sent } = recordingFetch();
      const seen: string[] = [];
      for await (const change of sdkFor(t, v, { fetch }).changes()) {
        assert.equal(change.changeStatus, 'CHANGED_STATUS_NEW');
        assert.deepEqual(marks(sent), seen, 'the changes before this one are marked, this one not yet');
        await sleep(30);
        assert.deepEqual(marks(sent), seen, 'still not marked while the body awaits');
        seen.push(change.id);
      }
      assert.deepEqual(seen, ids, 'oldest change first');
      assert.deepEqual(marks(sent), ids);
      assert.deepEqual((await sdkFor(t, v).listChangedTransactions()).changes, []);
    });

    test('a throw in the loop body leaves that change unmarked: it comes again in the next loop', async () => {
      const v = await t.newVendor();
      const [first, second] = await feedOrder(v, await bought(v, 2));
      const { fetch, sent } = recordingFetch();
      const sdk = sdkFor(t, v, { fetch });
      const failing = async () => {
        for await (const change of sdk.changes()) {
          if (change.id === second) throw new Error('the handler failed');
        }
      };
      await assert.rejects(failing(), /the handler failed/);
      assert.deepEqual(marks(sent), [first]);
      const again: string[] = [];
      for await (const change of sdk.changes()) again.push(change.id);
      assert.deepEqual(again, [second]);
    });

    test('pages of `limit` are followed while x-more-changes says more are waiting', async () => {
      const v = await t.newVendor();
      const ids = await feedOrder(v, await bought(v, 5));
      const { fetch, sent } = recordingFetch();
      const seen: string[] = [];
      for await (const change of sdkFor(t, v, { fetch }).changes({ limit: 2 })) seen.push(change.id);
      assert.deepEqual(seen, ids);
      assert.equal(sent.filter((s) => s.method === 'GET').length, 3);
    });

    test('with watch, the loop keeps polling for new changes until its signal aborts', async () => {
      const v = await t.newVendor();
      const product = await v.product({ type: 'ONETIME' });
      const firstId = await v.buy(product.id);
      const stop = new AbortController();
      const seen: ChangedTransaction[] = [];
      let later = '';
      const sdk = sdkFor(t, v);
      for await (const change of sdk.changes({ watch: true, pollIntervalMs: 20, signal: stop.signal })) {
        seen.push(change);
        if (seen.length === 1) later = await v.buy(product.id, { email: 'later@example.com' });
        else stop.abort();
      }
      assert.deepEqual(
        seen.map((c) => c.id),
        [firstId, later],
      );
      assert.deepEqual(
        (await sdk.listChangedTransactions()).changes,
        [],
        'the last body finished before the abort: marked',
      );
    });

    test('either spelling of the change flag and the assigned e-mail gives the same typed change, the answer kept as raw', async () => {
      const v = await t.newVendor();
      const [id] = await bought(v, 1);
      await sdkFor(t, v).assignEmail(id!, 'signup@vendor.example');
      const keepOnly = (keep: string[], drop: string[]) => (body: unknown) =>
        Array.isArray(body)
          ? body.map((element: Record<string, unknown>) => {
              const copy = { ...element };
              for (const name of drop) delete copy[name];
              for (const name of keep) assert.ok(name in copy);
              return copy;
            })
          : body;
      const samples = recordingFetch({
        rewrite: keepOnly(['changedStatus', 'assignedEmail'], ['changeStatus', 'assignEmail']),
      });
      const schema = recordingFetch({
        rewrite: keepOnly(['changeStatus', 'assignEmail'], ['changedStatus', 'assignedEmail']),
      });
      for (const { fetch } of [samples, schema]) {
        const [change] = (await sdkFor(t, v, { fetch }).listChangedTransactions()).changes;
        assert.equal(change!.changeStatus, 'CHANGED_STATUS_NEW');
        assert.equal(change!.assignedEmail, 'signup@vendor.example');
        assert.equal('changedStatus' in change!, false);
        assert.equal('assignEmail' in change!, false);
      }
      const [fromSamples] = (await sdkFor(t, v, { fetch: samples.fetch }).listChangedTransactions()).changes;
      assert.equal((fromSamples!.raw as Record<string, unknown>).changedStatus, 'CHANGED_STATUS_NEW');
      assert.equal('changeStatus' in fromSamples!.raw, false, 'raw is the answer as it came');

      const cleared = recordingFetch({
        rewrite: (body) =>
          (body as Array<Record<string, unknown>>).map((e) => ({ ...e, changeStatus: '', changedStatus: '' })),
      });
      const [none] = (await sdkFor(t, v, { fetch: cleared.fetch }).listChangedTransactions()).changes;
      assert.equal(none!.changeStatus, null, 'a flag cleared to an empty string is no flag');
    });
  });
}
