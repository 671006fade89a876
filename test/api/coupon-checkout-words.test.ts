import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

// The checkout says how long a subscription's coupon lasts and what follows, in the buyer's language
// (docs/decisions.md §38), and says a lasting coupon's refusals in it too.
const clock = fixedClock(new Date('2030-08-01T09:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`a lasting coupon at the checkout (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const plan = (chargeFrequency: string) =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency,
        prices: [
          { currency: 'USD', value: 10 },
          { currency: 'EUR', value: 9 },
        ],
      } as never);
    const termsOn = async (productId: string, code: string, locale = 'en') => {
      const res = await fetch(
        `${t.url}/sandbox/payment/product/${productId}?country=DE&coupon=${code}&locale=${locale}`,
      );
      const page = await res.text();
      return {
        // Intl spaces amounts and percentages with no-break spaces; read here as plain ones.
        terms: /data-testid="coupon-terms">([^<]*)</.exec(page)?.[1]?.replace(/[\u00a0\u202f]/g, ' '),
        error: /role="alert" id="error">([^<]*)/.exec(page)?.[1],
      };
    };

    test('"20% off for 3 months, then" the full monthly total, in English and German', async () => {
      const monthly = await plan('MONTHLY');
      await t.services.coupons.create(v.scope(), {
        productId: monthly.id,
        code: 'THREE',
        percentOff: 20,
        duration: 'repeating',
        durationPeriods: 3,
      });
      // €9.00 + 19% VAT = €10.71 once the coupon ends.
      assert.equal((await termsOn(monthly.id, 'three')).terms, '20% off for 3 months, then €10.71 every month.');
      assert.equal(
        (await termsOn(monthly.id, 'three', 'de')).terms,
        '20 % Rabatt für 3 Monate, danach 10,71 € monatlich.',
      );
      const quote = await fetch(`${t.url}/sandbox/payment/product/${monthly.id}/quote?country=DE&coupon=THREE`);
      assert.match(((await quote.json()) as { html: string }).html, /20% off for 3 months, then €10\.71 every month\./);
    });

    test('once, forever, and half-yearly periods said in months', async () => {
      const halfYearly = await plan('HALF_YEARLY');
      await t.services.coupons.create(v.scope(), { productId: halfYearly.id, code: 'FIRSTONLY', percentOff: 50 });
      await t.services.coupons.create(v.scope(), {
        productId: halfYearly.id,
        code: 'ALWAYS',
        amountsOff: [
          { currency: 'USD', value: 2 },
          { currency: 'EUR', value: 1.5 },
        ],
        duration: 'forever',
      });
      await t.services.coupons.create(v.scope(), {
        productId: halfYearly.id,
        code: 'YEAR',
        percentOff: 12.5,
        duration: 'repeating',
        durationPeriods: 2,
      });
      assert.equal(
        (await termsOn(halfYearly.id, 'FIRSTONLY')).terms,
        '50% off the first payment, then €10.71 every 6 months.',
      );
      assert.equal((await termsOn(halfYearly.id, 'ALWAYS')).terms, '€1.50 off every payment.');
      assert.equal(
        (await termsOn(halfYearly.id, 'YEAR')).terms,
        '12.5% off for 12 months, then €10.71 every 6 months.',
      );
      assert.equal(
        (await termsOn(halfYearly.id, 'YEAR', 'pl')).terms,
        '12,5% zniżki przez 12 miesięcy, potem 10,71 € co 6 miesięcy.',
      );
    });

    test("a used-up coupon is refused in the buyer's language, with the full price", async () => {
      const monthly = await plan('MONTHLY');
      await t.services.coupons.create(v.scope(), {
        productId: monthly.id,
        code: 'ONCEONLY',
        percentOff: 10,
        maxRedemptions: 1,
      });
      await v.buy(monthly.id, { coupon: 'ONCEONLY' });
      const refused = await termsOn(monthly.id, 'onceonly', 'fr');
      assert.equal(refused.error, 'Le code promo onceonly a été entièrement utilisé.');
      assert.equal(refused.terms, undefined);
    });
  });
}
