import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import type { Database } from '../../src/store/database.ts';
import { openPostgres } from '../../src/store/postgres-database.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * A buyer presses Pay while the database is away (issue 31), in Chromium at desktop and phone size: a
 * page says it could not be done just now and that nothing was charged, with one button to try again,
 * which sends the form again as typed (the card aside, which the checkout then asks for); once the
 * database is back that buys, once. Axe-clean; screenshots go to test-artifacts/checkout-unavailable-*.png.
 */
const postgres = (await storeKinds()).includes('postgres');

describe('the checkout while its database is away, in Chromium', { skip: !postgres && 'needs PostgreSQL' }, () => {
  let store: Awaited<ReturnType<typeof freshDatabase>>;
  let proxy: TcpProxy;
  let database: Database;
  let t: TestApp;
  let v: TestVendor;
  let productId: string;
  let browser: Browser;

  before(async () => {
    store = await freshDatabase('postgres');
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    database = openPostgres(
      Object.assign(new URL(store.url!), { hostname: '127.0.0.1', port: String(proxy.port) }).toString(),
      4,
    );
    const port = await freePort();
    t = await startTestApp('postgres', { port, database, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    productId = (
      await v.product({
        type: 'ONETIME',
        name: 'Acme Pro',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      })
    ).id;
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await database?.close();
    await proxy?.close();
    await store?.drop();
  });

  const fillCard = async (page: Page) => {
    await page.fill('#cardNumber', '4242 4242 4242 4242');
    await page.fill('#cardExpiry', '12/34');
    await page.fill('#cardCvc', '123');
  };

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`Pay while the database is away: try again keeps what was typed, asks for the card, and buys once (${size})`, async () => {
      const context = await browser.newContext({ locale: 'en-US', viewport });
      const page = await context.newPage();
      const email = `away-${size}@example.com`;
      try {
        await page.goto(`${t.url}/sandbox/payment/product/${productId}?country=DE`);
        await page.fill('#email', email);
        await page.fill('#firstName', 'Greta');
        await page.fill('#lastName', 'Berg');
        await fillCard(page);

        await proxy.cut();
        const refused = page.waitForResponse((r) => r.request().method() === 'POST');
        await page.click('#pay');
        assert.equal((await refused).status(), 503);
        assert.equal(await page.locator('h1').textContent(), 'Temporarily unavailable');
        assert.match((await page.locator('[role="alert"]').textContent()) ?? '', /nothing was charged/);
        await screenshot(page, `${ARTIFACTS}checkout-unavailable-${size}.png`, { fullPage: true });
        assert.deepEqual(await seriousViolations(page), []);

        await proxy.restore();
        await page.click('button[type="submit"]');
        await page.locator('#cardNumber[aria-invalid="true"]').waitFor();
        assert.equal(await page.inputValue('#email'), email, 'the e-mail typed is kept');
        assert.equal(await page.inputValue('#lastName'), 'Berg');
        assert.equal(await page.inputValue('#cardNumber'), '', 'the card is asked for again');
        assert.match(
          (await page.locator('.alert.bad').textContent()) ?? '',
          /Enter your card again to pay: nothing has been charged yet/,
        );
        await screenshot(page, `${ARTIFACTS}checkout-unavailable-again-${size}.png`, { fullPage: true });
        assert.deepEqual(await seriousViolations(page), []);

        await fillCard(page);
        await page.click('#pay');
        await page.locator('h1', { hasText: 'Thank you' }).waitFor();
        const bought = await v.api(`/v1/transactions/${encodeURIComponent(email)}`);
        assert.equal(bought.json.length, 1, 'bought once');
      } finally {
        await proxy.restore();
        await context.close();
      }
    });
  }
});
