import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Scope } from '../../src/domain/model.ts';
import type { FormBrowser } from '../helpers/form-browser.ts';
import { signedUp } from '../helpers/panel-world.ts';
import { startTestApp, storeKinds, TEST_CARD, type TestApp } from '../helpers/test-app.ts';

/**
 * The panel's product form sells per seat (docs/decisions.md §39): the range and volume tiers typed one a
 * line ("10: USD 8.00"), checked by the domain as the API's are; unticked, the product is one per purchase.
 */
for (const kind of await storeKinds()) {
  describe(`the panel's seats (${kind})`, () => {
    let t: TestApp;
    let owner: { b: FormBrowser; scope: Scope };
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
      owner = await signedUp(t, 'owner@seats.test', 'Seat Co');
    });
    after(() => t.close());

    const products = () => t.services.catalog.listProducts(owner.scope);

    test('a product made per seat with a tier, changed, then sold one per purchase again', async () => {
      await owner.b.get('/panel/products?env=sandbox');
      const res = await owner.b.post('/panel/products?env=sandbox', {
        name: 'Team',
        type: 'SUBSCRIPTION',
        frequency: 'MONTHLY',
        prices: 'USD 10',
        perSeat: 'yes',
        seatMin: '2',
        seatMax: '40',
        seatTiers: '10: USD 8.00\n25+: USD 7',
      });
      assert.equal(res.status, 303, res.html);
      const [team] = await products();
      assert.deepEqual(team!.seats, {
        minQuantity: 2,
        maxQuantity: 40,
        tiers: [
          { fromQuantity: 10, prices: { USD: 800 } },
          { fromQuantity: 25, prices: { USD: 700 } },
        ],
      });
      const page = await owner.b.get('/panel/products?env=sandbox');
      assert.match(page.html, /name="seatTiers"[^>]*>10: [^\n<]*8\.00\n25: [^<]*7\.00<\/textarea>/);
      await owner.b.get('/panel/products?env=sandbox');
      const bad = await owner.b.post('/panel/products/edit?env=sandbox', {
        id: team!.id,
        name: 'Team',
        prices: 'USD 10',
        perSeat: 'yes',
        seatMin: '2',
        seatMax: '40',
        seatTiers: 'ten seats: USD 8',
      });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /Write a tier as/);
      assert.equal((await products())[0]!.seats?.tiers.length, 2, 'nothing changed');
      await owner.b.get('/panel/products?env=sandbox');
      const off = await owner.b.post('/panel/products/edit?env=sandbox', {
        id: team!.id,
        name: 'Team',
        prices: 'USD 10',
      });
      assert.equal(off.status, 303, off.html);
      assert.equal((await products())[0]!.seats, null);
    });

    test('a subscription’s seats change from its panel page: more now, on the subscription that goes on', async () => {
      const product = await t.services.catalog.createProduct(owner.scope, {
        name: 'Seats plan',
        type: 'SUBSCRIPTION',
        prices: [{ currency: 'USD', value: 10 }],
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
      const bought = await t.services.purchases.purchase(owner.scope, {
        productId: product.id,
        email: 'team@example.com',
        country: 'US',
        quantity: 3,
        card: TEST_CARD,
      });
      assert.equal(bought.status, 'PAID');
      const id = bought.status === 'PAID' ? bought.transaction.id : '';
      const page = await owner.b.get(`/panel/transactions/${id}?env=sandbox`);
      assert.match(page.html, /data-testid="seats-now">3 seats\./);
      assert.match(page.html, /id="quantity" name="quantity" type="number"[^>]*min="1" max="20"/);
      const bad = await owner.b.post(`/panel/transactions/${id}/seats?env=sandbox`, { quantity: '21' });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /from 1 to 20 seats/);
      const res = await owner.b.post(`/panel/transactions/${id}/seats?env=sandbox`, { quantity: '5' });
      assert.equal(res.status, 303, res.html);
      const next = /\/panel\/transactions\/([^?]+)\?/.exec(res.location ?? '')?.[1];
      assert.ok(next && next !== id, res.location ?? '');
      assert.equal((await t.services.store.transactions.find(owner.scope, next))?.quantity, 5);
      const after = await owner.b.get(`/panel/transactions/${next}?env=sandbox&done=seats-changed`);
      assert.match(after.html, /The seats are changed/);
    });
  });
}
