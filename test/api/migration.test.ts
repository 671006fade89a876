import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * Upgrade and downgrade through transactionIdToMigrate (SPEC 4.2), with the proration worked out
 * by hand in each test. Customers in the US without a ZIP code pay no tax, so net = total.
 */
for (const kind of await storeKinds()) {
  describe(`subscription migration with proration (${kind})`, () => {
    const clock = fixedClock(new Date('2030-04-01T00:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const monthly = (usd: number) =>
      v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: usd }] });
    const upgradeLink = async (productId: string, oldId: string, usd: number) => {
      const res = await v.api(`/v1/customize-product/${productId}`, {
        body: { prices: [{ currency: 'USD', value: usd }], transactionIdToMigrate: oldId },
      });
      assert.equal(res.status, 200, res.text);
      return res.json.customizedProductId as string;
    };
    /** Opens the hosted checkout of `id` and pays with the success card. */
    const checkout = async (id: string, email: string) => {
      const page = await fetch(`${t.url}/sandbox/payment/product/${id}?country=US`);
      const html = await page.text();
      const form = hiddenFields(html);
      const res = await fetch(`${t.url}/sandbox/payment/product/${id}?country=US`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...form,
          email,
          country: 'US',
          cardNumber: '4242424242424242',
          cardExpiry: '12/34',
          cardCvc: '123',
        }),
      });
      return { page: html, status: res.status, html: await res.text() };
    };
    const byEmail = async (email: string) =>
      (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as any[];

    test('upgrade monthly $30 to monthly $60 after 10 of 30 days: the new first charge is 10 days later', async () => {
      clock.set(new Date('2030-04-01T00:00:00.000Z'));
      const oldId = await v.buy((await monthly(30)).id, { email: 'up@example.com', country: 'US' });
      // Paid period: 1 April to 1 May, 30 days.
      clock.set(new Date('2030-04-11T00:00:00.000Z'));
      const link = await upgradeLink((await monthly(60)).id, oldId, 60);
      const done = await checkout(link, 'up@example.com');
      assert.equal(done.status, 200, done.html);
      assert.match(done.page, /Switch subscription/);
      assert.match(done.html, /first charge is on April 21, 2030/);

      // Left: 20 of 30 days of $30 = $20. At $60 for the 30 days from 11 April to 11 May, $20 buys
      // 20/60 x 30 days = 10 days: first charge 21 April.
      const all = await byEmail('up@example.com');
      const fresh = all.find((tx) => tx.id !== oldId);
      const old = all.find((tx) => tx.id === oldId);
      assert.equal(fresh.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(fresh.nextCharge, '2030-04-21T00:00:00.000Z');
      assert.equal(fresh.lastCharge, null);
      assert.equal(fresh.netPriceInUSD, 60);
      assert.deepEqual((await v.api(`/v1/transaction/${fresh.id}`)).json.entries, [], 'nothing charged today');

      assert.equal(old.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(old.whoCanceled, 'VENDOR');
      assert.equal(old.nextCharge, null);
      const feed = (await v.api('/v1/changed-transactions')).json as any[];
      assert.equal(feed.find((c) => c.id === oldId)?.changeStatus, 'CHANGED_STATUS_CANCELLED');
      assert.equal(feed.find((c) => c.id === fresh.id)?.changeStatus, 'CHANGED_STATUS_NEW');

      // The link cannot migrate the same subscription twice.
      const again = await checkout(link, 'up@example.com');
      assert.equal(again.status, 400);
      assert.equal((await byEmail('up@example.com')).length, 2);
    });

    test('switch monthly $30 to yearly $365 after 10 of 31 days: 20.3226 days of the new plan', async () => {
      clock.set(new Date('2030-01-01T00:00:00.000Z'));
      const oldId = await v.buy((await monthly(30)).id, { email: 'yearly@example.com', country: 'US' });
      clock.set(new Date('2030-01-11T00:00:00.000Z'));
      const yearly = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'YEARLY',
        prices: [{ currency: 'USD', value: 365 }],
      });
      const done = await checkout(await upgradeLink(yearly.id, oldId, 365), 'yearly@example.com');
      assert.equal(done.status, 200, done.html);
      // Left: 21 of 31 days of $30 = $20.322580... The year from 11 January 2030 has 365 days at
      // $365, so that buys 20.322580... days = 1,755,870,967.74 ms, rounded down:
      // 11 January 00:00 + 20 d 7 h 44 min 30.967 s.
      const fresh = (await byEmail('yearly@example.com')).find((tx) => tx.id !== oldId);
      assert.equal(fresh.nextCharge, '2030-01-31T07:44:30.967Z');
    });

    test('the link works only for the subscriber, and only an active subscription can be migrated', async () => {
      clock.set(new Date('2030-06-01T00:00:00.000Z'));
      const oldId = await v.buy((await monthly(10)).id, { email: 'owner@example.com', country: 'US' });
      const link = await upgradeLink((await monthly(20)).id, oldId, 20);
      const stranger = await checkout(link, 'stranger@example.com');
      assert.equal(stranger.status, 400);
      assert.match(stranger.html, /upgrade link is for the e-mail address/);
      assert.deepEqual(await byEmail('stranger@example.com'), []);

      // Cancelled after the link was made: the link no longer migrates it.
      assert.equal((await v.api(`/v1/cancel-subscription/${oldId}`, { method: 'POST' })).status, 200);
      const late = await checkout(link, 'owner@example.com');
      assert.equal(late.status, 400);
      assert.equal((await byEmail('owner@example.com')).length, 1);

      const trial = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        trialDays: 7,
        prices: [{ currency: 'USD', value: 5 }],
      });
      const inTrial = await v.buy(trial.id, { email: 'trial@example.com', country: 'US' });
      const refused = await v.api(`/v1/customize-product/${trial.id}`, {
        body: { prices: [{ currency: 'USD', value: 9 }], transactionIdToMigrate: inTrial },
      });
      assert.equal(refused.status, 400);
      assert.match(refused.json.message, /SUBSCRIPTION_STATUS_ACTIVE_TRIAL/);
    });
  });
}
