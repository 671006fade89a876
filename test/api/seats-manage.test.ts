import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { manageVisit } from '../helpers/manage-visit.ts';
import { signedUp } from '../helpers/panel-world.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The customer's own seat change on the management page, where the vendor allows it in Settings
 * (docs/decisions.md §39): the same seat change as the API's, more seats now, fewer at the period's end,
 * a second one refused before the next charge with its date, in the customer's language.
 */
for (const kind of await storeKinds()) {
  describe(`seats on the management page (${kind})`, () => {
    const clock = fixedClock(new Date('2031-05-01T00:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind, { clock, env: { PANEL_SIGNUP: 'open' } });
      v = await t.newVendor('Seats Co');
    });
    after(() => t.close());
    const { manageLink, open, formToken, post } = manageVisit(
      () => t,
      () => v,
    );
    const perSeat = () =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
        seats: { minQuantity: 2, maxQuantity: 20 },
      });
    const subscriptionsOf = async (email: string) =>
      (await t.services.store.transactions.listByEmail(v.scope(), email)).map((x) => [x.quantity, x.status]);
    const seats = (path: string, html: string, id: string, quantity: string) =>
      post(path, { formToken: formToken(html), action: 'seats', transactionId: id, quantity });

    test('the settings tick lets customers change seats, off by default', async () => {
      const { b, scope } = await signedUp(t, 'owner@seats.test', 'Seat Settings Co');
      assert.equal(await t.services.portal.customerSeats(scope.vendorId), false);
      assert.match((await b.get('/panel/settings?env=sandbox')).html, /name="customerSeats" value="yes">/);
      assert.equal((await b.post('/panel/settings?env=sandbox', { customerSeats: 'yes' })).status, 303);
      assert.equal(await t.services.portal.customerSeats(scope.vendorId), true);
      assert.match((await b.get('/panel/settings?env=sandbox')).html, /name="customerSeats" value="yes" checked>/);
      assert.equal((await b.post('/panel/settings?env=sandbox', {})).status, 303);
      assert.equal(await t.services.portal.customerSeats(scope.vendorId), false);
    });

    test('5 → 8 now, once; a second change waits for the charge, then 8 → 6 at the period end', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const product = await perSeat();
      const email = 'team@example.com';
      const id = await v.buy(product.id, { email, quantity: 5 });
      let path = await manageLink(email);
      let page = await open(path);
      assert.doesNotMatch(page.html, /data-testid="seats-form"/);
      const early = await seats(path, page.html, id, '8');
      assert.equal(early.status, 400, 'refused without the vendor’s leave');
      assert.deepEqual(await subscriptionsOf(email), [[5, 'SUBSCRIPTION_STATUS_ACTIVE']]);

      await t.services.portal.setCustomerSeats(v.vendor.id, true);
      page = await open(path);
      assert.match(page.html, /name="quantity" type="number" inputmode="numeric" min="2" max="20" step="1" value="5"/);
      assert.match(page.html, /Fewer seats start on June 1, 2031, when the paid period ends/);
      for (const bad of ['21', '1', '5', '4x', ''])
        assert.equal((await seats(path, page.html, id, bad)).status, 400, `quantity ${bad}`);
      const refused = await open(path);
      assert.equal(refused.status, 200);
      assert.deepEqual(await subscriptionsOf(email), [[5, 'SUBSCRIPTION_STATUS_ACTIVE']], 'nothing changed');
      const range = await seats(path, page.html, id, '21');
      assert.match(await range.text(), /Enter a number of seats from 2 to 20, other than your current 5/);

      clock.set(new Date('2031-05-11T00:00:00.000Z'));
      // A link lasts a while: the customer comes back with a new one.
      path = await manageLink(email);
      page = await open(path);
      // Twenty at once (a double click, retries): one change, each answered as the first.
      const answers = await Promise.all(Array.from({ length: 20 }, () => seats(path, page.html, id, '8')));
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [303]);
      assert.match(answers[0]!.headers.get('location')!, /done=seats/);
      const after8 = (await t.services.store.transactions.listByEmail(v.scope(), email)).filter(
        (x) => x.status === 'SUBSCRIPTION_STATUS_ACTIVE',
      );
      assert.deepEqual(
        after8.map((x) => [x.quantity, x.nextCharge]),
        [[8, '2031-05-24T03:00:00.000Z']],
      );
      page = await open(`${path}?done=seats`);
      assert.match(page.html, /Your seats have been changed/);
      assert.match(page.html, /Number of seats: 8. It can change again after your payment on May 24, 2031/);
      const second = await seats(path, page.html, after8[0]!.id, '9');
      assert.equal(second.status, 400);
      assert.match(await second.text(), /after your payment on May 24, 2031/);

      clock.set(new Date('2031-05-24T03:00:00.000Z'));
      assert.equal((await t.services.billing.runDue({ sandboxVendorId: v.vendor.id })).renewed, 1);
      path = await manageLink(email);
      page = await open(path);
      assert.match(page.html, /value="8"/);
      const lowered = await seats(path, page.html, after8[0]!.id, '6');
      assert.equal(lowered.status, 303);
      const live = (await t.services.store.transactions.listByEmail(v.scope(), email))
        .filter((x) => x.status !== 'SUBSCRIPTION_STATUS_CANCELLED')
        .map((x) => [x.quantity, x.status, x.nextCharge])
        .sort();
      assert.deepEqual(live, [
        [6, 'SUBSCRIPTION_STATUS_ACTIVE', '2031-06-24T03:00:00.000Z'],
        [8, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING', '2031-06-24T03:00:00.000Z'],
      ]);
      await t.services.portal.setCustomerSeats(v.vendor.id, false);
    });

    test('the seats control speaks the customer’s language', async () => {
      clock.set(new Date('2031-05-01T00:00:00.000Z'));
      const product = await perSeat();
      await v.buy(product.id, { email: 'equipe@example.com', quantity: 3 });
      await t.services.portal.setCustomerSeats(v.vendor.id, true);
      const path = await manageLink('equipe@example.com');
      const de = await open(`${path}?locale=de`);
      assert.match(de.html, /Anzahl der Plätze ändern/);
      const ar = await open(`${path}?locale=ar`);
      assert.match(ar.html, /تغيير عدد المقاعد/);
      await t.services.portal.setCustomerSeats(v.vendor.id, false);
    });
  });
}
