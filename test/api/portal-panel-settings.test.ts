import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signedUp } from '../helpers/panel-world.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * The vendor's portal settings in the panel (docs/decisions.md §34): per subscription product, the plans
 * its subscribers may switch to (only the vendor's own subscriptions, never itself, never another
 * vendor's); and whether customers may cancel at once. Each is what the customer's page then offers.
 */
for (const kind of await storeKinds()) {
  describe(`portal settings in the panel (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    test('a product lists the other subscriptions; the ticked ones become its plan switches', async () => {
      const { b, scope } = await signedUp(t, 'owner@plans.test');
      const make = (name: string, type = 'SUBSCRIPTION') =>
        t.services.catalog.createProduct(scope, {
          name,
          type,
          ...(type === 'SUBSCRIPTION' ? { chargeFrequency: 'MONTHLY' } : {}),
          prices: [{ currency: 'USD', value: 10 }],
        } as any);
      const basic = await make('Basic');
      const pro = await make('Pro');
      const yearly = await make('Team');
      const app = await make('Desktop app', 'ONETIME');
      const { scope: foreign } = await signedUp(t, 'other@plans.test', 'Other Co');
      const theirs = await t.services.catalog.createProduct(foreign, {
        name: 'Theirs',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 5 }],
      } as any);

      const page = await b.get('/panel/products?env=sandbox');
      const form = new RegExp(`data-id="${basic.id}"[\\s\\S]*?data-testid="switches"[\\s\\S]*?</form>`).exec(
        page.html,
      )![0];
      assert.match(form, new RegExp(`name="to-${pro.id}"`));
      assert.match(form, new RegExp(`name="to-${yearly.id}"`));
      assert.doesNotMatch(form, new RegExp(`name="to-${basic.id}"|name="to-${app.id}"`));
      assert.doesNotMatch(
        new RegExp(`data-id="${app.id}"[\\s\\S]*?</section>`).exec(page.html)![0],
        /data-testid="switches"/,
      );

      const saved = await b.post('/panel/products/switches?env=sandbox', {
        id: basic.id,
        [`to-${pro.id}`]: 'yes',
        [`to-${app.id}`]: 'yes',
        [`to-${theirs.id}`]: 'yes',
        [`to-${basic.id}`]: 'yes',
      });
      assert.equal(saved.status, 303);
      assert.deepEqual(await t.services.portal.switchesOf(scope, basic.id), [pro.id]);
      const again = await b.get('/panel/products?env=sandbox');
      assert.match(again.html, new RegExp(`name="to-${pro.id}" value="yes" checked`));

      assert.equal((await b.post('/panel/products/switches?env=sandbox', { id: basic.id })).status, 303);
      assert.deepEqual(await t.services.portal.switchesOf(scope, basic.id), [], 'unticking all allows none');
      const refused = await b.post('/panel/products/switches?env=sandbox', { id: theirs.id, [`to-${pro.id}`]: 'yes' });
      assert.equal(refused.status, 400);
      assert.match(refused.html, /not found/i, "another vendor's product is not found");
      assert.deepEqual(await t.services.portal.switchesOf(foreign, theirs.id), []);
    });

    test('customers may cancel at once only after the vendor ticks it in Settings', async () => {
      const { b, scope } = await signedUp(t, 'owner@cancel.test', 'Cancel Co');
      assert.equal(await t.services.portal.cancelNowAllowed(scope.vendorId), false);
      const page = await b.get('/panel/settings?env=sandbox');
      assert.match(
        page.html,
        /<input type="checkbox" name="cancelNow" value="yes"> Customers may end a subscription at once/,
      );
      assert.equal((await b.post('/panel/settings?env=sandbox', { cancelNow: 'yes' })).status, 303);
      assert.equal(await t.services.portal.cancelNowAllowed(scope.vendorId), true);
      assert.match((await b.get('/panel/settings?env=sandbox')).html, /name="cancelNow" value="yes" checked/);
      assert.equal((await b.post('/panel/settings?env=sandbox', {})).status, 303);
      assert.equal(await t.services.portal.cancelNowAllowed(scope.vendorId), false);
    });
  });
}
