import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ClaimCursor } from '../../src/domain/ports.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Within a run, each claim goes on where the one before ended (so a claim does not walk again over the
 * index entries the rows billed before it left behind); a run ends only when nothing is due from the
 * start, so a subscription renewed into a period that is already due, behind where the claims have got
 * to, is still billed in the same run.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date('2030-03-01T12:00:00.000Z');

for (const kind of await storeKinds()) {
  describe(`claims go on where the claim before ended (${kind})`, () => {
    const clock = fixedClock(T0);
    let t: TestApp;
    let v: TestVendor;

    before(async () => {
      t = await startTestApp(kind, { clock, billing: { batchSize: 2 } });
    });
    after(() => t.close());
    beforeEach(async () => {
      clock.set(T0);
      v = await t.newVendor();
    });

    const subscription = async (chargeFrequency: 'DAILY' | 'WEEKLY', boughtAt: Date) => {
      clock.set(boughtAt);
      const product = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency,
        prices: [{ currency: 'USD', value: 20 }],
      } as never);
      return v.buy(product.id);
    };
    const claim = async (after?: ClaimCursor, limit = 2) =>
      t.services.store.billing.claimDue({
        dueBy: clock.now().toISOString(),
        sandboxVendorId: v.vendor.id,
        now: clock.now().toISOString(),
        attemptsSince: new Date(clock.now().getTime() - 120_000).toISOString(),
        limit,
        after,
      });
    const payments = async (id: string) =>
      (await t.services.transactions.get(v.scope(), id)).entries.filter((e) => e.type === 'SUBSCRIPTION_PAYMENT')
        .length;

    test('a claim with a cursor takes only the rows past it, by next charge and then id', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await subscription('DAILY', new Date(T0.getTime() + i * HOUR)));
      clock.set(new Date(T0.getTime() + 2 * DAY));
      const all = (await claim(undefined, 10)).map((due) => ({
        nextCharge: due.transaction.nextCharge!,
        id: due.transaction.id,
      }));
      assert.deepEqual(
        all.map((c) => c.id),
        ids,
        'due oldest first',
      );

      const walked: string[] = [];
      let cursor: ClaimCursor | undefined;
      // Bounded: a cursor that took its own row again would page forever.
      for (let page = await claim(), pages = 0; page.length > 0 && pages < 10; page = await claim(cursor), pages++) {
        walked.push(...page.map((due) => due.transaction.id));
        const last = page.at(-1)!.transaction;
        cursor = { nextCharge: last.nextCharge!, id: last.id };
      }
      assert.deepEqual(walked, ids, 'pages of two from the cursor walk every due row once, in order');
      assert.deepEqual(
        (await claim({ nextCharge: all[2]!.nextCharge, id: all[2]!.id }, 10)).map((due) => due.transaction.id),
        ids.slice(3),
        'the cursor row itself is not taken again',
      );
    });

    test('one run bills a subscription renewed into a period already due behind where the claims have got to', async () => {
      // A weekly subscription due at T0 + 3 days, a daily one due at T0 + 1 day; billed at T0 + 3.5 days,
      // two a batch: the first batch takes both, and the daily one's next charge (T0 + 2 days) lies
      // behind that batch's last row. The run looks at the start again and bills it, and the day after.
      const weekly = await subscription('WEEKLY', new Date(T0.getTime() - 4 * DAY));
      const daily = await subscription('DAILY', T0);
      clock.set(new Date(T0.getTime() + 3.5 * DAY));
      const report = await t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
      assert.equal(report.renewed, 4);
      assert.equal(
        await payments(daily),
        4,
        'the daily subscription: its purchase and the renewals of days 1, 2 and 3',
      );
      assert.equal(await payments(weekly), 2, 'the weekly subscription: its purchase and one renewal');
      assert.deepEqual(await claim(undefined, 10), [], 'nothing is left due');
    });
  });
}
