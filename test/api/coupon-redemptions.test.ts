import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { NewCoupon } from '../../src/domain/catalog/index.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { hiddenFields } from '../../support/checkout-form.ts';
import { faultGateway } from '../helpers/fault-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

// A coupon's redemptions are counted exactly once (docs/decisions.md §38): taken with the purchase's
// attempt under the caps, in the database, and given back when its payment fails.
const clock = fixedClock(new Date('2030-06-01T09:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`coupon redemptions (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let faults: ReturnType<typeof faultGateway>;
    before(async () => {
      faults = faultGateway(() => t.services.database);
      t = await startTestApp(kind, {
        clock,
        gateways: { sandbox: faults.gateway },
        // The reconciler asks about an open attempt at once (the voided payment's test); the gateway's own timeout
        // stays the default, so no charge under the load of 20 at once turns UNKNOWN.
        payments: { reconcileGraceMs: 0 },
      });
      faults.use(sandboxGateway(t.services.database.kysely, () => new Date()));
      v = await t.newVendor('Capped Coupons Ltd');
    });
    after(async () => {
      await faults?.heal();
      await t?.close();
    });

    /** A $20 product (its own guessing counter at the checkout) and a coupon CODE on it. */
    async function productWithCoupon(coupon: Omit<NewCoupon, 'productId' | 'code'>) {
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      const created = await t.services.coupons.create(v.scope(), { productId: product.id, code: 'CODE', ...coupon });
      return { productId: product.id, couponId: created.id };
    }

    /** The hosted checkout as a browser: the page with the coupon, then the form sent with a card. */
    async function checkout(productId: string, email: string, cardNumber = '4242424242424242') {
      const page = await fetch(`${t.url}/sandbox/payment/product/${productId}?country=DE&coupon=CODE`);
      const form = hiddenFields(await page.text());
      const res = await fetch(`${t.url}/sandbox/payment/product/${productId}?country=DE&coupon=CODE`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...form,
          coupon: 'CODE',
          email,
          country: 'DE',
          cardNumber,
          cardExpiry: '12/34',
          cardCvc: '123',
        }),
      });
      return { status: res.status, html: await res.text() };
    }

    const db = () => t.services.database.kysely;
    /** Purchases booked with the coupon, and payments taken for them. */
    async function redeemed(couponId: string) {
      const bought = await db().selectFrom('transactions').select('id').where('coupon_id', '=', couponId).execute();
      const paid = await db()
        .selectFrom('ledger_entries')
        .innerJoin('transactions', 'transactions.id', 'ledger_entries.transaction_id')
        .select('ledger_entries.id')
        .where('transactions.coupon_id', '=', couponId)
        .execute();
      const coupon = await t.services.store.coupons.find(v.scope(), couponId);
      return { bought: bought.length, paid: paid.length, counted: coupon!.redemptions };
    }

    test('20 checkouts at once on a coupon capped at 5 give exactly 5 paid purchases with it', async () => {
      const { productId, couponId } = await productWithCoupon({ percentOff: 20, maxRedemptions: 5 });
      const pages = await Promise.all(
        Array.from({ length: 20 }, (_, i) => checkout(productId, `buyer${i}@example.com`)),
      );
      assert.deepEqual(await redeemed(couponId), { bought: 5, paid: 5, counted: 5 });
      // The others were refused before anything was charged: no payment without the coupon either.
      const charged = await db()
        .selectFrom('charge_attempts')
        .select('id')
        .where('vendor_id', '=', v.vendor.id)
        .where('status', '=', 'SUCCEEDED')
        .execute();
      assert.equal(charged.length, 5);
      assert.equal(pages.filter((p) => /used up/.test(p.html)).length > 0, true, 'a refused buyer is told why');
    });

    test('20 checkouts at once by one e-mail on a coupon allowed once per customer give exactly one', async () => {
      const { productId, couponId } = await productWithCoupon({ percentOff: 20, maxPerCustomer: 1 });
      await Promise.all(Array.from({ length: 20 }, () => checkout(productId, 'Same.Buyer@example.com')));
      assert.deepEqual(await redeemed(couponId), { bought: 1, paid: 1, counted: 1 });
      // Another e-mail still may; the first, in another case, may not.
      await checkout(productId, 'other@example.com');
      const again = await checkout(productId, 'same.buyer@EXAMPLE.com');
      assert.match(again.html, /already been used with this e-mail address/);
      assert.deepEqual(await redeemed(couponId), { bought: 2, paid: 2, counted: 2 });
    });

    test('a declined card does not use the redemption up: the next buyer gets the last one', async () => {
      const { productId, couponId } = await productWithCoupon({ percentOff: 20, maxRedemptions: 1 });
      const declined = await checkout(productId, 'declined@example.com', '4000000000000002');
      assert.match(declined.html, /declined/);
      assert.deepEqual(await redeemed(couponId), { bought: 0, paid: 0, counted: 0 });
      const paid = await checkout(productId, 'paid@example.com');
      assert.equal(paid.status, 200);
      assert.deepEqual(await redeemed(couponId), { bought: 1, paid: 1, counted: 1 });
      assert.match((await checkout(productId, 'late@example.com')).html, /used up/);
    });

    test('a payment the processor never had is voided and gives its redemption back', async () => {
      const { productId, couponId } = await productWithCoupon({ percentOff: 20, maxRedemptions: 1 });
      faults.arm('network-down');
      await checkout(productId, 'unlucky@example.com');
      assert.equal((await redeemed(couponId)).counted, 1, 'held while the payment is open');
      await faults.heal();
      await t.services.reconciler.run();
      assert.deepEqual(await redeemed(couponId), { bought: 0, paid: 0, counted: 0 });
      await checkout(productId, 'lucky@example.com');
      assert.deepEqual(await redeemed(couponId), { bought: 1, paid: 1, counted: 1 });
    });
  });
}
