import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The changed-transactions feed under fire: renewals (the billing worker), cancels and refunds
 * (the API) race with a vendor that lists and marks processed in a loop. No change may be lost:
 * at the end, what the vendor last saw of every transaction is its final state, and the feed is empty.
 */
const SUBSCRIPTIONS = 120;

for (const kind of await storeKinds()) {
  describe(`changed-transactions feed racing with billing (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-15T12:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    test('every change is seen at least once and the feed ends empty', { timeout: 300_000 }, async () => {
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' } as any);
      const ids: string[] = [];
      for (let i = 0; i < SUBSCRIPTIONS; i++) ids.push(await v.buy(product.id, { email: `feed${i}@example.com` }));
      const pick = () => ids[Math.floor(Math.random() * ids.length)]!;

      const seen = new Map<string, any>();
      let actorsDone = false;
      let lists = 0;
      const vendor = (async () => {
        let emptyAfterDone = 0;
        while (emptyAfterDone < 2) {
          const res = await v.api('/v1/changed-transactions?limit=10');
          assert.equal(res.status, 200, res.text);
          if (!actorsDone) lists++;
          for (const element of res.json as any[]) {
            seen.set(element.id, element);
            const marked = await v.api(`/v1/changed-transactions/${element.id}`, { method: 'POST' });
            assert.equal(marked.status, 200, marked.text);
          }
          if (actorsDone && (res.json as any[]).length === 0) emptyAfterDone++;
        }
      })();

      const worker = (async () => {
        for (let step = 0; step < 40; step++) {
          clock.advance(5 * 86_400_000);
          await t.services.billing.runDue();
          await sleep(10);
        }
      })();
      const canceller = (async () => {
        for (let i = 0; i < 60; i++) {
          assert.equal((await v.api(`/v1/cancel-subscription/${pick()}`, { method: 'POST' })).status, 200);
          await sleep(5);
        }
      })();
      const refunder = (async () => {
        for (let i = 0; i < 60; i++) {
          const res = await v.api(`/v1/refund-transaction/${pick()}`, { method: 'POST' });
          assert.ok(res.status === 200 || (res.status === 400 && res.json.error === 'INVALID_STATE'), res.text);
          await sleep(5);
        }
      })();
      await Promise.all([worker, canceller, refunder]);
      actorsDone = true;
      await vendor;

      let renewed = 0;
      for (const id of ids) {
        const tx = (await t.services.store.transactions.find(v.scope(), id))!;
        const last = seen.get(id);
        assert.ok(last, `${id} was never seen`);
        assert.deepEqual(
          [last.changeStatus, last.transactionStatus, last.lastCharge, last.nextCharge ?? null],
          [tx.changeFlag, tx.status, tx.lastCharge, tx.nextCharge],
          `the vendor's last view of ${id} is its final state`,
        );
        if (
          (await t.services.store.entries.listForTransaction(id)).filter((e) => e.type === 'SUBSCRIPTION_PAYMENT')
            .length > 1
        )
          renewed++;
      }
      assert.ok(renewed > 0, 'renewals happened during the race');
      assert.ok(lists >= 5, `the vendor listed while the others changed things (${lists} lists)`);
      const rest = await v.api('/v1/changed-transactions');
      assert.deepEqual(rest.json, [], 'the feed ends empty');
    });
  });
}
