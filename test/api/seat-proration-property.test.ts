import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { periodStart } from '../../src/domain/billing/index.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The property of seat changes (docs/decisions.md §39): over a subscription's life with any seat
 * changes, what was charged equals the value of the seats used, each span of time at its quantity's
 * price per period: the paid period's own length for seats that were charged, one period from the
 * change for seats a credit paid for. Worked out here from the times alone, not by the proration code;
 * the only difference allowed is the rounding down of each credit to the millisecond (under a cent).
 * Changes come after a charge (a change before the next charge is refused, tested in seat-changes).
 */
interface Change {
  /** When, in thousandths of the paid span since the latest charge. */
  at: number;
  quantity: number;
}

for (const kind of await storeKinds()) {
  describe(`seat changes charge exactly the seats used (${kind})`, () => {
    const clock = fixedClock(new Date('2032-01-15T00:00:00.000Z'));
    let t: TestApp;
    useTestApp(kind, { clock }, (app) => (t = app));

    async function life(w: TestVendor, frequency: 'WEEKLY' | 'MONTHLY', unit: number, q0: number, changes: Change[]) {
      const product = await w.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: frequency,
        prices: [{ currency: 'USD', value: unit / 100 }],
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
      const start = new Date('2032-01-15T00:00:00.000Z');
      clock.set(start);
      const email = 'life@example.com';
      let id = await w.buy(product.id, { email, quantity: q0 });
      let [q, last, next] = [q0, start.getTime(), periodStart(start, frequency, 1).getTime()];
      let used = 0;
      const renewTo = async (at: number) => {
        clock.set(new Date(at));
        await t.services.billing.runDue({ sandboxVendorId: w.vendor.id });
      };
      for (const change of changes) {
        if (change.quantity === q) continue;
        const at = last + Math.floor(((next - last) * change.at) / 1000);
        clock.set(new Date(at));
        const res = await w.api(`/v1/update-quantity/${id}`, { body: { quantity: change.quantity } });
        assert.equal(res.status, 200, res.text);
        const first = Date.parse(res.json.nextCharge);
        if (change.quantity > q) {
          // The old seats until the change, at their paid period's rate; the new ones until their first
          // charge, at the rate of one period from the change.
          const period = periodStart(new Date(at), frequency, 1).getTime() - at;
          used += (q * unit * (at - last)) / (next - last) + (change.quantity * unit * (first - at)) / period;
        } else {
          assert.equal(first, next, 'fewer seats start when the paid period ends');
          used += q * unit;
        }
        await renewTo(first);
        [q, id, last, next] = [
          change.quantity,
          res.json.id,
          first,
          periodStart(new Date(first), frequency, 1).getTime(),
        ];
        assert.equal((await w.api(`/v1/transaction/${id}`)).json.quantity, q);
      }
      used += q * unit; // the latest charge's period, used to its end
      const all = (await w.api(`/v1/transactions/${email}`)).json as { id: string }[];
      let charged = 0;
      for (const tx of all)
        for (const entry of await t.services.store.entries.listForTransaction(tx.id)) charged += entry.amountTotalMinor;
      const rounded = changes.length * 1;
      assert.ok(
        Math.abs(charged - used) <= rounded,
        `charged ${charged}, seats used ${used.toFixed(4)} (${frequency}, ${unit}, ${q0}, ${JSON.stringify(changes)})`,
      );
      return { charged, used };
    }

    test('for any seat changes in any paid span, charged = the prorated value of the seats used', async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('WEEKLY' as const, 'MONTHLY' as const),
          fc.integer({ min: 100, max: 5000 }),
          fc.integer({ min: 1, max: 20 }),
          fc.array(fc.record({ at: fc.integer({ min: 1, max: 999 }), quantity: fc.integer({ min: 1, max: 20 }) }), {
            minLength: 1,
            maxLength: 4,
          }),
          async (frequency, unit, q0, changes) => {
            const w = await t.newVendor(`Life ${++runs}`);
            await life(w, frequency, unit, q0, changes);
          },
        ),
        { numRuns: 12, seed: 39 },
      );
    });

    test('the worked example: 5 seats at $10 monthly, raised to 8 after 10 of 31 days, lowered to 6 halfway through', async () => {
      const w = await t.newVendor('Example');
      const { charged } = await life(w, 'MONTHLY', 1000, 5, [
        { at: 323, quantity: 8 },
        { at: 500, quantity: 6 },
      ]);
      // $50 paid on 15 January; what is left of it buys 8 seats until they are first charged ($80);
      // halfway through that month, 6 seats from its end ($60). Nothing else is ever charged.
      assert.equal(charged, 5000 + 8000 + 6000);
    });
  });
}
