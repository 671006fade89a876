import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seedDemoIfEmpty } from '../../src/demo-seed.ts';
import { signedUp } from '../helpers/panel-world.ts';
import { startTestApp, storeKinds, TEST_CARD, type TestApp } from '../helpers/test-app.ts';

/**
 * The overview a newcomer meets, on both stores (issue 36): a new vendor's empty charts say "No sales
 * yet" instead of a scale of "max $0.01", and the demo of the first start spreads its purchases over
 * the last 30 days, so its chart has days to show, with its sandbox clock put right afterwards.
 */
const DAY_MS = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`the overview a newcomer meets (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    test('the demo spreads its purchases over the last 30 days, none ahead of now, and leaves its sandbox clock at real time', async () => {
      const demo = await seedDemoIfEmpty(t.services);
      assert.ok(demo);
      const scope = { vendorId: demo.vendorId, environment: 'sandbox' as const };
      assert.equal(t.services.clock.offsetOf(demo.vendorId), 0, 'the demo sandbox runs at real time again');
      const now = t.services.clock.real().getTime();
      const { transactions } = await t.services.dashboard.transactions(scope, {}, { limit: 100, offset: 0 });
      assert.ok(transactions.length >= 8, `${transactions.length} purchases`);
      const ages = transactions.map((tx) => (now - Date.parse(tx.createdAt)) / DAY_MS);
      assert.ok(
        ages.every((age) => age >= 0 && age < 30),
        `all within the last 30 days: ${ages.map((a) => a.toFixed(1))}`,
      );
      assert.ok(Math.max(...ages) >= 25, 'the first a few weeks back');
      assert.ok(Math.min(...ages) <= 2, 'the latest a day or two ago');
      const days = new Set(transactions.map((tx) => tx.createdAt.slice(0, 10)));
      assert.ok(days.size >= 8, `on ${days.size} different days`);

      const overview = await t.services.dashboard.overview(scope, 'day');
      assert.ok(overview.usd.paid.filter((v) => v > 0).length >= 6, 'the chart has bars on many days');
      // Entries follow their transaction's day: a subscription's first payment is on the day it was bought.
      const [monthly] = (await t.services.transactions.listByEmail(scope, 'bob@example.com')).filter(
        (tx) => tx.type === 'SUBSCRIPTION',
      );
      const [payment] = await t.services.store.entries.listForTransaction(monthly!.id);
      assert.equal(payment!.createdAt, monthly!.createdAt);
      assert.ok(Date.parse(monthly!.nextCharge!) > now, 'its next charge is still ahead');
      const trial = (await t.services.transactions.listByEmail(scope, 'chloe@example.com'))[0]!;
      assert.equal(trial.status, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL', 'the trial still runs');
    });

    test('a new vendor’s overview says No sales yet instead of a scale; a sale brings the chart and its scale', async () => {
      const { b, scope } = await signedUp(t, 'new@overview.test');
      const empty = (await b.get('/panel?env=sandbox')).html;
      assert.match(empty, /data-testid="no-sales">No sales yet/);
      assert.doesNotMatch(empty, /max \$0\.01|chart-scale/);
      assert.doesNotMatch(empty, /<svg class="chart"/);

      const product = await t.services.catalog.createProduct(scope, {
        name: 'App',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 49 }],
      });
      const bought = await t.services.purchases.purchase(scope, {
        productId: product.id,
        email: 'ann@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(bought.status, 'PAID');
      const sold = (await b.get('/panel?env=sandbox')).html;
      assert.doesNotMatch(sold, /No sales yet/);
      assert.match(sold, /<p class="chart-scale muted">max \$49\.00<\/p>/);
      assert.equal([...sold.matchAll(/<svg class="chart"/g)].length, 2, 'the USD chart and the USD currency’s');
    });
  });
}
