import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { formBrowser } from '../helpers/form-browser.ts';
import { startTestApp, storeKinds, TEST_CARD, TEST_SELLER, type TestApp } from '../helpers/test-app.ts';

/**
 * The panel's Tax returns (issue 34 item 5, docs/decisions.md §23): a vendor selling for itself sees the
 * returns of its own sales, never another vendor's, whatever the query says; where the operator is the
 * seller, the page says the operator files them and there is no CSV.
 */
for (const kind of await storeKinds()) {
  describe(`panel tax returns (${kind})`, () => {
    const clock = fixedClock(new Date('2030-05-10T10:00:00.000Z'));

    async function vendorIn(t: TestApp, name: string, email: string, country: string) {
      const created = await t.services.catalog.createVendor({ name, email });
      await t.services.catalog.updateVendorSettings(created.id, TEST_SELLER(name, 'US'));
      const scope = { vendorId: created.id, environment: 'sandbox' as const };
      const product = await t.services.catalog.createProduct(scope, {
        name: 'App',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 100 }],
      });
      const sale = await t.services.purchases.purchase(scope, {
        productId: product.id,
        email: 'buyer@example.com',
        country,
        currency: 'USD',
        card: TEST_CARD,
      });
      assert.equal(sale.status, 'PAID');
      const { token } = await t.services.panelInvites.issue(created.id);
      await t.services.panelInvites.accept(token, 'a long enough passphrase');
      const b = formBrowser(t.url);
      await b.get('/panel/signin');
      assert.equal((await b.post('/panel/signin', { email, password: 'a long enough passphrase' })).status, 303);
      return { id: created.id, b };
    }

    test('a vendor selling for itself: its own sales only, as a table and the CLI’s CSV', async () => {
      const t = await startTestApp(kind, { clock });
      try {
        const mine = await vendorIn(t, 'Mine Ltd', 'mine@vendor.test', 'GB');
        const theirs = await vendorIn(t, 'Theirs Ltd', 'theirs@vendor.test', 'AU');
        const page = await mine.b.get('/panel/taxes?env=sandbox&period=2030-Q2');
        assert.equal(page.status, 200);
        assert.match(page.html, /data-testid="tax-row"[^]*?UK VAT[^]*?GB[^]*?100\.00 USD[^]*?20\.00 USD/);
        assert.equal(page.html.match(/data-testid="tax-row"/g)?.length, 1, 'not the other vendor’s sale');
        const csv = await mine.b.get(`/panel/taxes/tax.csv?env=sandbox&period=2030-Q2&vendor=${theirs.id}`);
        assert.equal(csv.status, 200);
        assert.match(csv.html, /^2030-Q2,uk,sales,GB,0\.2,,USD,100\.00,20\.00,1,,,,,$/m);
        assert.doesNotMatch(csv.html, /,AU,/, 'a vendor in the query is not whose sales');
        const bad = await mine.b.get('/panel/taxes?env=sandbox&period=Q2');
        assert.equal(bad.status, 400);
        assert.match(bad.html, /is not a period/);
      } finally {
        await t.close();
      }
    });

    test('where the operator is the seller, the panel sends the vendor to its payouts and has no returns', async () => {
      const t = await startTestApp(kind, {
        clock,
        env: {
          SELLER_OF_RECORD: 'operator',
          SELLER_NAME: 'Platform Ltd',
          SELLER_ADDRESS: '1 Platform Street|Dublin',
          SELLER_COUNTRY: 'IE',
          SELLER_TAX_ID: 'IE6388047V',
        },
      });
      try {
        const mine = await vendorIn(t, 'Mine Ltd', 'mine@vendor.test', 'GB');
        const page = await mine.b.get('/panel/taxes?env=sandbox&period=2030-Q2');
        assert.match(page.html, /operator of this server is the seller of your sales/);
        assert.doesNotMatch(page.html, /tax-row/);
        assert.equal((await mine.b.get('/panel/taxes/tax.csv?env=sandbox&period=2030-Q2')).status, 404);
      } finally {
        await t.close();
      }
    });
  });
}
