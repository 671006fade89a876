import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { NewCoupon } from '../../src/domain/catalog/index.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

// Lasting discounts through renewals (docs/decisions.md §38): each payment's ledger net, period by
// period, as the vendor's sandbox clock moves and billing catches up.
const clock = fixedClock(new Date('2030-03-01T09:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`lasting coupons through renewals (${kind})`, () => {
    let t: TestApp;
    useTestApp(kind, { clock }, (app) => (t = app));

    /** A new vendor (its own sandbox clock) selling a $10-a-month plan, and a coupon on it. */
    async function planWithCoupon(coupon: Omit<NewCoupon, 'productId' | 'code'>, product: object = {}) {
      const v = await t.newVendor();
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
        ...product,
      } as never);
      await t.services.coupons.create(v.scope(), { productId: plan.id, code: 'LASTING', ...coupon });
      return { v, plan };
    }

    /** The nets of the subscription's payments after `renewals` renewals, in order, in cents. */
    async function netsAfter(v: TestVendor, id: string, renewals: number): Promise<number[]> {
      for (let i = 0; i < renewals; i++) {
        const tx = await t.services.store.transactions.find(v.scope(), id);
        await t.services.sandboxClock.advance(v.scope(), { to: tx!.nextCharge });
        await t.services.sandboxClock.catchUp(v.scope());
      }
      const entries = await t.services.store.entries.listForTransaction(id);
      const payments = entries.filter((e) => e.type === 'SUBSCRIPTION_PAYMENT');
      assert.equal(payments.length, renewals + 1, 'one payment per period');
      return payments.map((e) => e.netMinor);
    }

    test('a coupon for 3 billing periods discounts the first payment and the next two renewals; the fourth is in full', async () => {
      const { v, plan } = await planWithCoupon({ percentOff: 20, duration: 'repeating', durationPeriods: 3 });
      const id = await v.buy(plan.id, { coupon: 'lasting', country: 'HK', currency: 'USD' });
      assert.deepEqual(await netsAfter(v, id, 4), [800, 800, 800, 1000, 1000]);
      const entries = await t.services.store.entries.listForTransaction(id);
      assert.deepEqual(
        entries.map((e) => e.discountMinor),
        [200, 200, 200, 0, 0],
        'each entry keeps what the coupon took off',
      );
    });

    test("each invoice a coupon covers has a discount line under the line's list price; the first in full has none", async () => {
      const { v, plan } = await planWithCoupon({ percentOff: 20, duration: 'repeating', durationPeriods: 2 });
      const id = await v.buy(plan.id, { coupon: 'LASTING', country: 'HK', currency: 'USD' });
      await netsAfter(v, id, 2);
      const entries = await t.services.store.entries.listForTransaction(id);
      const texts = await Promise.all(
        entries.map(async (e) =>
          pdfText(Buffer.from(await (await fetch(`${t.url}/sandbox/invoice/${e.hashId}`)).arrayBuffer())),
        ),
      );
      for (const text of texts.slice(0, 2)) {
        assert.match(text, /Product1US\$10\.00US\$10\.00/, 'the line at its list price');
        assert.match(text, /Discount−US\$2\.00 Net amountUS\$8\.00 Tax 0%US\$0\.00 Total paidUS\$8\.00/);
      }
      assert.doesNotMatch(texts[2]!, /Discount/);
      assert.match(texts[2]!, /Paid with Visa ending in 4242 Net amountUS\$10\.00/);
    });

    test("the dashboard's MRR counts a lasting coupon while it lasts, and the full price after it", async () => {
      const { v, plan } = await planWithCoupon({ percentOff: 20, duration: 'repeating', durationPeriods: 2 });
      const mrr = async () => (await t.services.dashboard.overview(v.scope(), 'day')).mrr.byCurrency;
      const id = await v.buy(plan.id, { coupon: 'LASTING', country: 'HK', currency: 'USD' });
      assert.deepEqual(await mrr(), { USD: 800 }, 'the next renewal is the second discounted period');
      await netsAfter(v, id, 1);
      assert.deepEqual(await mrr(), { USD: 1000 }, 'the coupon is spent: the next renewal is in full');
    });

    test('a forever coupon discounts every renewal; a once coupon only the first payment', async () => {
      const forever = await planWithCoupon({ amountsOff: [{ currency: 'USD', value: 3 }], duration: 'forever' });
      const a = await forever.v.buy(forever.plan.id, { coupon: 'LASTING', country: 'HK', currency: 'USD' });
      assert.deepEqual(await netsAfter(forever.v, a, 3), [700, 700, 700, 700]);
      const once = await planWithCoupon({ percentOff: 50 });
      const b = await once.v.buy(once.plan.id, { coupon: 'LASTING', country: 'HK', currency: 'USD' });
      assert.deepEqual(await netsAfter(once.v, b, 2), [500, 1000, 1000]);
    });

    test("a trial's first charge is the first discounted period", async () => {
      const { v, plan } = await planWithCoupon(
        { percentOff: 10, duration: 'repeating', durationPeriods: 2 },
        { trialDays: 7 },
      );
      const id = await v.buy(plan.id, { coupon: 'LASTING', country: 'HK', currency: 'USD' });
      // Nothing is paid at checkout; then 2 discounted charges and one in full.
      for (let i = 0; i < 3; i++) {
        const tx = await t.services.store.transactions.find(v.scope(), id);
        await t.services.sandboxClock.advance(v.scope(), { to: tx!.nextCharge });
        await t.services.sandboxClock.catchUp(v.scope());
      }
      const entries = await t.services.store.entries.listForTransaction(id);
      assert.deepEqual(
        entries.filter((e) => e.type === 'SUBSCRIPTION_PAYMENT').map((e) => e.netMinor),
        [900, 900, 1000],
      );
    });

    test('a coupon revoked after the purchase keeps discounting the periods it granted', async () => {
      const { v, plan } = await planWithCoupon({ percentOff: 20, duration: 'repeating', durationPeriods: 2 });
      const id = await v.buy(plan.id, { coupon: 'LASTING', country: 'HK', currency: 'USD' });
      const [coupon] = await t.services.coupons.list(v.scope());
      await t.services.coupons.revoke(v.scope(), coupon!.id);
      assert.deepEqual(await netsAfter(v, id, 2), [800, 800, 1000]);
    });

    test("a coupon's start date is read on the vendor's sandbox clock", async () => {
      const { v, plan } = await planWithCoupon({ percentOff: 20, startsAt: '2030-04-01T00:00:00.000Z' });
      await assert.rejects(t.services.coupons.redeemable(v.scope(), plan.id, 'lasting'), /is not valid yet/);
      await t.services.sandboxClock.advance(v.scope(), { to: '2030-04-01T00:00:00.000Z' });
      assert.equal((await t.services.coupons.redeemable(v.scope(), plan.id, 'lasting')).code, 'LASTING');
      // The real clock has not moved: production (and other vendors) still see it as not started.
      assert.ok(clock.now() < new Date('2030-04-01T00:00:00.000Z'));
    });

    test('a coupon made without a duration is used once, as every coupon was before', async () => {
      const { v, plan } = await planWithCoupon({ percentOff: 25 });
      const [coupon] = await t.services.coupons.list(v.scope());
      assert.equal(coupon!.duration, 'once');
      // A row written before migration 0033 (none of its columns given) reads as once, uncapped, its one product.
      await t.services.database.kysely
        .insertInto('coupons')
        .values({
          id: 'TC-CO_OLDSTYLE',
          vendor_id: v.vendor.id,
          environment: 'sandbox',
          product_id: plan.id,
          code: 'OLDSTYLE',
          percent_off: '50',
          amounts_off_json: '{}',
          expires_at: null,
          revoked_at: null,
          created_at: clock.now().toISOString(),
        } as never)
        .execute();
      const old = await t.services.coupons.redeemable(v.scope(), plan.id, 'oldstyle');
      assert.deepEqual(
        [old.duration, old.durationPeriods, old.maxRedemptions, old.otherProductIds, old.frequencies, old.startsAt],
        ['once', null, null, [], null, null],
      );
      const id = await v.buy(plan.id, { coupon: 'OLDSTYLE', country: 'HK', currency: 'USD' });
      assert.deepEqual(await netsAfter(v, id, 1), [500, 1000]);
    });
  });
}
