import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Seat changes on an active subscription (docs/decisions.md §39), through POST /v1/update-quantity:
 * more seats now, prorated as a plan switch is (nothing charged today, the value left of the paid
 * period brings the next charge forward), fewer at the end of the paid period. Worked out by hand.
 * Customers are in the US without a ZIP code: no tax, net = total.
 */
for (const kind of await storeKinds()) {
  describe(`seat changes (${kind})`, () => {
    const clock = fixedClock(new Date('2031-05-01T00:00:00.000Z'));
    let t: TestApp;
    useTestApp(kind, { clock }, (app) => (t = app));

    /** $10 a seat, 1 to 20 seats, monthly; a vendor of its own so no other test's renewal is due with it. */
    const world = async (name: string) => {
      const w = await t.newVendor(name);
      const product = await w.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
      return { w, product };
    };
    const change = (w: TestVendor, id: string, body: unknown, headers: Record<string, string> = {}) =>
      w.api(`/v1/update-quantity/${id}`, { body, headers });
    const ledger = (id: string) => t.services.store.entries.listForTransaction(id);
    const read = async (w: TestVendor, id: string) => (await w.api(`/v1/transaction/${id}`)).json;
    const renew = async (w: TestVendor) => (await t.services.billing.runDue({ sandboxVendorId: w.vendor.id })).renewed;

    test('5 seats raised to 8 after 10 of 31 days: nothing charged now, 8 seats charged 13.125 days later', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const { w, product } = await world('Raise');
      const old = await w.buy(product.id, { email: 'raise@example.com', quantity: 5 });
      clock.set(new Date('2031-05-11T00:00:00.000Z'));
      const res = await change(w, old, { quantity: 8 });
      assert.equal(res.status, 200, res.text);
      // Left: 21 of 31 days of $50. At $80 for the 31 days from 11 May, that buys 50/80 × 21 = 13.125 days.
      assert.deepEqual(
        { ...res.json, id: undefined },
        { id: undefined, replaces: old, quantity: 8, effective: 'NOW', nextCharge: '2031-05-24T03:00:00.000Z' },
      );
      const fresh = await read(w, res.json.id);
      assert.deepEqual(
        [fresh.quantity, fresh.netPrice, fresh.transactionStatus],
        [8, 80, 'SUBSCRIPTION_STATUS_ACTIVE'],
      );
      assert.deepEqual(fresh.entries, [], 'nothing charged today');
      assert.equal((await read(w, old)).transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      // Sent again, the same answer; the old subscription changes no more.
      const again = await change(w, old, { quantity: 8 });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.id, res.json.id);
      // Not charged yet since the change: another change waits for that charge.
      const early = await change(w, res.json.id, { quantity: 9 });
      assert.deepEqual([early.status, early.json.error], [400, 'INVALID_STATE'], early.text);
      assert.match(early.json.message, /2031-05-24/);
      clock.set(new Date('2031-05-24T02:59:59.000Z'));
      assert.equal(await renew(w), 0);
      clock.set(new Date('2031-05-24T03:00:00.000Z'));
      assert.equal(await renew(w), 1);
      assert.deepEqual(
        (await ledger(res.json.id)).map((e) => e.amountTotalMinor),
        [8000],
      );
      // Charged: its seats change again.
      assert.equal((await change(w, res.json.id, { quantity: 9 })).status, 200);
    });

    test('8 seats lowered to 6: the 8 run out the paid period, the 6 are charged from its end', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const { w, product } = await world('Lower');
      const old = await w.buy(product.id, { email: 'lower@example.com', quantity: 8 });
      clock.set(new Date('2031-05-20T00:00:00.000Z'));
      const res = await change(w, old, { quantity: 6 });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.json.effective, res.json.quantity, res.json.nextCharge],
        ['PERIOD_END', 6, '2031-06-01T00:00:00.000Z'],
      );
      const before = await read(w, old);
      assert.deepEqual([before.transactionStatus, before.quantity], ['SUBSCRIPTION_STATUS_CANCELLED_PENDING', 8]);
      clock.set(new Date('2031-06-01T00:00:00.000Z'));
      await renew(w);
      assert.deepEqual(
        (await ledger(old)).map((e) => e.amountTotalMinor),
        [8000],
        'the 8 seats were charged once, for May',
      );
      assert.deepEqual(
        (await ledger(res.json.id)).map((e) => e.amountTotalMinor),
        [6000],
      );
      assert.equal((await read(w, old)).transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
    });

    test('a change the product does not allow is refused with 400 and changes nothing', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const { w, product } = await world('Refusals');
      const id = await w.buy(product.id, { email: 'refuse@example.com', quantity: 3 });
      const plain = await w.product({ type: 'SUBSCRIPTION', prices: [{ currency: 'USD', value: 5 }] });
      const single = await w.buy(plain.id, { email: 'refuse@example.com' });
      const cases: [string, unknown][] = [
        [id, { quantity: 21 }],
        [id, { quantity: 0 }],
        [id, { quantity: 3 }],
        [id, { quantity: 4, seats: 4 }],
        [id, {}],
        [id, { quantity: '4x' }],
        [single, { quantity: 2 }],
      ];
      for (const [tx, body] of cases) {
        const res = await change(w, tx, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(typeof res.json.message, 'string');
      }
      assert.equal((await change(w, 'TC-TR_01NOTATRANSACTION0000000', { quantity: 4 })).status, 404);
      const still = await read(w, id);
      assert.deepEqual([still.transactionStatus, still.quantity], ['SUBSCRIPTION_STATUS_ACTIVE', 3]);
    });

    test('20 simultaneous changes of one subscription to different quantities: exactly one is made', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const { w, product } = await world('Race');
      const id = await w.buy(product.id, { email: 'race@example.com', quantity: 1 });
      clock.set(new Date('2031-05-05T00:00:00.000Z'));
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => change(w, id, { quantity: i + 2 > 20 ? 20 : i + 2 })),
      );
      const made = answers.filter((a) => a.status === 200);
      assert.equal(made.length, 1, answers.map((a) => a.text).join('\n'));
      for (const a of answers) if (a.status !== 200) assert.ok(a.status >= 400 && a.status < 500, a.text);
      const all = (await w.api('/v1/transactions/race@example.com')).json as { transactionStatus: string }[];
      assert.deepEqual(all.map((tx) => tx.transactionStatus).sort(), [
        'SUBSCRIPTION_STATUS_ACTIVE',
        'SUBSCRIPTION_STATUS_CANCELLED',
      ]);
    });
  });
}
