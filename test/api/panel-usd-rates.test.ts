import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Which rate each USD figure uses (issue 35, docs/decisions.md §30). The overview converts a EUR sale at
 * the server's exchange-rate table, the same rate for every day; the transaction's netPriceInUSD is the
 * USD price of what was bought, not a conversion. The page says both, naming the table's date and rate.
 */
const TABLE = '# 2030-06-27\nUSD,1.25\nGBP,0.8\nJPY,160\n';

for (const kind of await storeKinds()) {
  describe(`the overview says which rate its USD figures use (${kind})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-usd-rates-'));
    const ratesFile = join(dir, 'rates.csv');
    writeFileSync(ratesFile, TABLE);
    let t: TestApp;
    let v: TestVendor;
    let productId: string;
    let page: () => Promise<string>;
    before(async () => {
      // The clock is days after the table's date: a label naming today, or the sale's day, is wrong.
      t = await startTestApp(kind, {
        clock: fixedClock(new Date('2030-07-01T09:00:00.000Z')),
        env: { RATES_FILE: ratesFile },
      });
      v = await t.newVendor('Rates Co');
      productId = (
        await v.product({
          name: 'App',
          type: 'ONETIME',
          prices: [
            { currency: 'USD', value: 49 },
            { currency: 'EUR', value: 45 },
          ],
        })
      ).id;
      page = await overviewPage(t, v.vendor.id);
    });
    after(async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a EUR 45 sale of a USD 49 product: 56.25 in the overview at 1 EUR = 1.2500 USD of 2030-06-27, 49 as netPriceInUSD, and the page says why', async () => {
      assert.match(await page(), /the same rate for every day shown\.</, 'nothing to convert yet: no rate listed');
      const id = await v.buy(productId, { country: 'DE', currency: 'EUR' });
      const read = (await v.api(`/v1/transaction/${id}`)).json as {
        netPrice: number;
        currency: string;
        netPriceInUSD: number;
      };
      assert.deepEqual([read.netPrice, read.currency, read.netPriceInUSD], [45, 'EUR', 49]);

      const o = await t.services.dashboard.overview(v.scope(), 'day');
      assert.equal(o.usd.paidTotal, 5625, 'EUR 45 at 1.25 USD per EUR');
      assert.equal(o.ratesDate, '2030-06-27');
      assert.deepEqual(o.usdRates, [{ currency: 'EUR', usd: '1.2500' }]);

      const content = await page();
      assert.match(content, /data-testid="revenue-usd">\$56\.25</);
      assert.match(
        content,
        /data-testid="usd-basis">USD figures here convert other currencies at the exchange rates of 2030-06-27, the same rate for every day shown: 1 EUR = 1\.2500 USD\.</,
      );
      assert.match(
        content,
        /data-testid="net-usd-basis">A transaction's <code>netPriceInUSD<\/code> \(API and feed\) is not converted: it is the USD net price of what was bought, after any coupon/,
      );
    });

    test('every currency shown gets its rate, in the order of the page, a small one with five significant digits', async () => {
      await v.buy(productId, { country: 'GB', currency: 'GBP' });
      await v.buy(productId, { country: 'JP', currency: 'JPY' });
      const o = await t.services.dashboard.overview(v.scope(), 'day');
      assert.deepEqual(o.usdRates, [
        { currency: 'EUR', usd: '1.2500' },
        { currency: 'GBP', usd: '1.5625' },
        { currency: 'JPY', usd: '0.0078125' },
      ]);
      assert.match(
        await page(),
        /every day shown: 1 EUR = 1\.2500 USD, 1 GBP = 1\.5625 USD, 1 JPY = 0\.0078125 USD\.</,
      );
    });
  });
}

/** A getter of the vendor's sandbox overview, signed in with a panel login made as an invitation makes it. */
async function overviewPage(t: TestApp, vendorId: string): Promise<() => Promise<string>> {
  const password = 'correct horse battery staple';
  const { token } = await t.services.panelInvites.issue(vendorId);
  await t.services.panelInvites.accept(token, password);
  const vendor = await t.services.catalog.requireVendor(vendorId);
  const { cookie } = await t.services.panel.signIn({ email: vendor.email, password });
  return async () => {
    const res = await fetch(`${t.url}/panel?env=sandbox`, { headers: { cookie: `ot_panel=${cookie}` } });
    assert.equal(res.status, 200);
    return res.text();
  };
}
