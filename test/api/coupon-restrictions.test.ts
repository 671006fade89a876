import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

// Whom a coupon is for (docs/decisions.md §38): its products, its frequencies, a first purchase,
// and what a vendor may not make.
const clock = fixedClock(new Date('2030-07-01T09:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`coupon restrictions (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const plan = (chargeFrequency: string) =>
      v.product({ type: 'SUBSCRIPTION', chargeFrequency, prices: [{ currency: 'USD', value: 10 }] } as never);
    const usable = (productId: string, code: string, email?: string) =>
      t.services.coupons.redeemable(v.scope(), productId, code, email ? { email } : undefined).then(
        (c) => c.code,
        (err: Error) => err.message,
      );

    test('a coupon applies to its product and the other products it lists, not to the rest', async () => {
      const [own, listed, other] = [await plan('MONTHLY'), await plan('MONTHLY'), await plan('MONTHLY')];
      await t.services.coupons.create(v.scope(), {
        productId: own.id,
        code: 'SUITE',
        percentOff: 10,
        otherProductIds: [listed.id],
      });
      assert.equal(await usable(own.id, 'suite'), 'SUITE');
      assert.equal(await usable(listed.id, 'suite'), 'SUITE');
      assert.equal(await usable(other.id, 'suite'), 'The coupon "suite" is not valid for this product.');
      const id = await v.buy(listed.id, { coupon: 'SUITE', country: 'HK', currency: 'USD' });
      assert.equal((await t.services.store.transactions.find(v.scope(), id))!.netMinor, 900);
      // The code names one coupon per product: another coupon SUITE on a listed product is refused.
      await assert.rejects(
        t.services.coupons.create(v.scope(), { productId: listed.id, code: 'suite', percentOff: 5 }),
        /already has a coupon SUITE/,
      );
    });

    test('a coupon limited to yearly plans is refused on a monthly plan and a one-time product', async () => {
      const [monthly, yearly] = [await plan('MONTHLY'), await plan('YEARLY')];
      const once = await v.product({ type: 'ONETIME' });
      await t.services.coupons.create(v.scope(), {
        productId: yearly.id,
        code: 'YEARLYONLY',
        percentOff: 15,
        otherProductIds: [monthly.id, once.id],
        frequencies: ['yearly'],
      });
      assert.equal(await usable(yearly.id, 'YEARLYONLY'), 'YEARLYONLY');
      assert.match(await usable(monthly.id, 'YEARLYONLY'), /not valid for this product/);
      assert.match(await usable(once.id, 'YEARLYONLY'), /not valid for this product/);
    });

    test('a first-purchase coupon is refused to an e-mail that paid the vendor before, and used once by a newcomer', async () => {
      const product = await plan('MONTHLY');
      await t.services.coupons.create(v.scope(), {
        productId: product.id,
        code: 'WELCOME',
        percentOff: 30,
        firstPurchaseOnly: true,
      });
      await v.buy(product.id, { email: 'Regular@example.com', country: 'HK', currency: 'USD' });
      assert.equal(
        await usable(product.id, 'WELCOME', 'regular@EXAMPLE.com'),
        'The coupon "WELCOME" is for a first purchase only.',
      );
      assert.equal(await usable(product.id, 'WELCOME', 'new@example.com'), 'WELCOME');
      await v.buy(product.id, { email: 'new@example.com', coupon: 'WELCOME', country: 'HK', currency: 'USD' });
      await assert.rejects(
        v.buy(product.id, { email: 'new@example.com', coupon: 'WELCOME', country: 'HK', currency: 'USD' }),
        /first purchase only/,
      );
    });

    test('a coupon that is not yet valid, or used up, says so', async () => {
      const product = await plan('MONTHLY');
      await t.services.coupons.create(v.scope(), {
        productId: product.id,
        code: 'SOON',
        percentOff: 10,
        startsAt: '2030-07-02',
      });
      assert.equal(await usable(product.id, 'soon'), 'The coupon "soon" is not valid yet.');
      await t.services.coupons.create(v.scope(), {
        productId: product.id,
        code: 'ONLYONE',
        percentOff: 10,
        maxRedemptions: 1,
      });
      await v.buy(product.id, { coupon: 'ONLYONE', country: 'HK', currency: 'USD' });
      assert.equal(await usable(product.id, 'onlyone'), 'The coupon "onlyone" has been used up.');
    });

    test('a coupon with terms that do not hold is refused with what to fix, and nothing is made', async () => {
      const product = await plan('MONTHLY');
      const refusals: [object, RegExp][] = [
        [{ duration: 'repeating' }, /needs durationPeriods/],
        [{ duration: 'once', durationPeriods: 3 }, /only for a repeating coupon/],
        [{ duration: 'sometimes' }, /duration must be once, forever or repeating/],
        [{ duration: 'repeating', durationPeriods: 0 }, /durationPeriods must be a whole number from 1 to 999/],
        [{ duration: 'repeating', durationPeriods: 1000 }, /from 1 to 999/],
        [{ maxRedemptions: 2.5 }, /maxRedemptions must be a whole number/],
        [{ maxPerCustomer: 0 }, /maxPerCustomer must be a whole number/],
        [{ frequencies: ['FORTNIGHTLY'] }, /Unknown charge frequency FORTNIGHTLY/],
        [{ otherProductIds: ['TC-PR_NOSUCH'] }, /Product TC-PR_NOSUCH/],
        [{ startsAt: 'tomorrow' }, /startsAt "tomorrow" is not a date/],
        [{ startsAt: '2031-01-02', expiresAt: '2031-01-01' }, /expiresAt must be after startsAt/],
      ];
      for (const [terms, message] of refusals)
        await assert.rejects(
          t.services.coupons.create(v.scope(), { productId: product.id, code: 'BROKEN', percentOff: 10, ...terms }),
          message,
        );
      assert.equal((await t.services.coupons.list(v.scope())).filter((c) => c.code === 'BROKEN').length, 0);
    });
  });
}
