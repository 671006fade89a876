import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { manageVisit } from '../helpers/manage-visit.ts';
import { signedUp } from '../helpers/panel-world.ts';
import { startTestApp, storeKinds, TEST_CARD, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Pausing from the vendor's panel and, where the vendor allows it in Settings, from the customer's
 * management page (docs/decisions.md §41); each form lands back on its page with what happened.
 */
for (const kind of await storeKinds()) {
  describe(`pause and resume on the panel and the management page (${kind})`, () => {
    const clock = fixedClock(new Date('2030-05-02T08:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind, { clock, env: { PANEL_SIGNUP: 'open' } });
      v = await t.newVendor();
    });
    after(() => t.close());
    const { manageLink, open, formToken, post } = manageVisit(
      () => t,
      () => v,
    );
    const subscription = async (scope = v.scope()) => {
      const product = await t.services.catalog.createProduct(scope, {
        name: 'Pro Plan',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 12 }],
      } as any);
      return product;
    };

    test('the panel pauses until a date, shows the pause, and resumes; the settings tick lets customers pause', async () => {
      const { b, scope } = await signedUp(t, 'owner@pause.test', 'Pause Co');
      const product = await subscription(scope);
      const bought = await t.services.purchases.purchase(scope, {
        productId: product.id,
        email: 'buyer@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      if (bought.status !== 'PAID') throw new Error(`the purchase was ${bought.status}`);
      const id = bought.transaction.id;
      const detail = await b.get(`/panel/transactions/${id}?env=sandbox`);
      assert.match(detail.html, /data-testid="pause"/);
      const paused = await b.post(`/panel/transactions/${id}/pause?env=sandbox`, { resumeOn: '2030-08-01' });
      assert.equal(paused.status, 303);
      let tx = (await t.services.store.transactions.find(scope, id))!;
      assert.deepEqual(tx.pause && [tx.pause.startsAt, tx.pause.resumesAt], [
        '2030-06-02T08:00:00.000Z',
        '2030-08-01T00:00:00.000Z',
      ]);
      const shown = await b.get(`/panel/transactions/${id}?env=sandbox&done=paused`);
      assert.match(
        shown.html,
        /Pauses at the end of the paid period, 2030-06-02 08:00 UTC, until 2030-08-01 00:00 UTC/,
      );
      assert.match(shown.html, /nothing is charged while it is paused/);
      const refused = await b.post(`/panel/transactions/${id}/pause?env=sandbox`, { resumeOn: 'someday' });
      assert.equal(refused.status, 400);
      assert.match(refused.html, /resumeAt must be an ISO 8601 date-time/);
      assert.equal((await b.post(`/panel/transactions/${id}/resume?env=sandbox`, {})).status, 303);
      tx = (await t.services.store.transactions.find(scope, id))!;
      assert.equal(tx.pause, null);
      assert.equal(tx.nextCharge, '2030-06-02T08:00:00.000Z');

      assert.equal(await t.services.transactions.pauses.customerPause(scope.vendorId), false);
      assert.match((await b.get('/panel/settings?env=sandbox')).html, /name="customerPause" value="yes">/);
      assert.equal((await b.post('/panel/settings?env=sandbox', { customerPause: 'yes' })).status, 303);
      assert.equal(await t.services.transactions.pauses.customerPause(scope.vendorId), true);
      assert.equal((await b.post('/panel/settings?env=sandbox', {})).status, 303);
      assert.equal(await t.services.transactions.pauses.customerPause(scope.vendorId), false);
    });

    test('the customer sees no pause button until the vendor allows it; then pauses, sees it, and resumes', async () => {
      const product = await subscription();
      const id = await v.buy(product.id, { email: 'pauser@example.com' });
      const path = await manageLink('pauser@example.com');
      let page = await open(path);
      assert.doesNotMatch(page.html, /data-testid="pause"/);
      // Without the vendor's leave, the form is refused too.
      const early = await post(path, { formToken: formToken(page.html), action: 'pause', transactionId: id });
      assert.equal(early.status, 400);
      assert.equal((await t.services.store.transactions.find(v.scope(), id))!.pause, null);

      await t.services.transactions.pauses.setCustomerPause(v.vendor.id, true);
      page = await open(path);
      assert.match(page.html, /data-testid="pause"/);
      assert.match(page.html, /You can pause from .*2030.*, when the paid period ends, until you resume/);
      const paused = await post(path, { formToken: formToken(page.html), action: 'pause', transactionId: id });
      assert.equal(paused.status, 303);
      assert.match(paused.headers.get('location')!, /done=paused/);
      page = await open(`${path}?done=paused`);
      assert.match(page.html, /Your subscription will pause when the paid period ends/);
      assert.match(page.html, /data-testid="keep-running"/);
      assert.match(page.html, /Active until .*2030.*, then paused until you resume it/);

      // No plan switch while a pause is scheduled: the period a switch prorates against ends with it.
      const bigger = await subscription();
      await t.services.portal.setSwitches(v.scope(), product.id, [bigger.id]);
      assert.deepEqual((await t.services.portal.switchOptions(v.scope(), 'pauser@example.com', id)).options, []);

      clock.set(new Date('2030-07-01T00:00:00.000Z'));
      const later = await manageLink('pauser@example.com');
      page = await open(later);
      assert.match(page.html, /Paused: nothing is charged until you resume it/);
      assert.match(page.html, /Resuming starts a new period now, and it is charged now/);
      const resumed = await post(later, { formToken: formToken(page.html), action: 'resume', transactionId: id });
      assert.equal(resumed.status, 303);
      const tx = (await t.services.store.transactions.find(v.scope(), id))!;
      assert.equal(tx.nextCharge, '2030-07-01T00:00:00.000Z');
      assert.equal(tx.pause!.resumesAt, '2030-07-01T00:00:00.000Z');
      clock.set(new Date('2030-05-02T08:00:00.000Z'));
      await t.services.transactions.pauses.setCustomerPause(v.vendor.id, false);
    });
  });
}
