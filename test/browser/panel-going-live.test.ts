import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * Going live, in the panel (issue 35). The production panel says "Payments are off: <reason>" until the processor is configured (issue 35,
 * docs/decisions.md §30), on every page of production and never in the sandbox; with Stripe's keys but
 * no webhook signing secret it says that Stripe's events are refused instead; configured, it says
 * nothing. The gateways are the server's own wiring from the settings (no test gateway for production).
 * The overview names the rate its USD figures use, and says what netPriceInUSD is instead.
 * Axe-clean, shot at desktop and phone size (test-artifacts/panel-payments-off-*.png,
 * panel-payments-events-off-*.png, panel-usd-rates-*.png).
 */
const KEYS = { STRIPE_SECRET_KEY: 'sk_test_panel_notice', STRIPE_PUBLISHABLE_KEY: 'pk_test_panel_notice' };

describe('the panel when going live: payments off until the processor is configured, the rate of each USD figure, in Chromium', () => {
  let browser: Browser;
  const apps: TestApp[] = [];
  before(async () => {
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    for (const t of apps) await t.close();
  });

  /** A server on these settings, with production's gateway made from them as `opentill serve` makes it, and a signed-in vendor. */
  async function server(env: Record<string, string>) {
    const port = await freePort();
    const t = await startTestApp('sqlite', {
      port,
      env: { BASE_URL: `http://127.0.0.1:${port}`, STRIPE_API_URL: 'http://127.0.0.1:9', ...env },
      gateways: { production: undefined },
    });
    apps.push(t);
    const v = await t.newVendor('Acme Software');
    const { token } = await t.services.panelInvites.issue(v.vendor.id);
    await t.services.panelInvites.accept(token, 'a long enough passphrase');
    const { cookie } = await t.services.panel.signIn({ email: v.vendor.email, password: 'a long enough passphrase' });
    return { t, v, open: (page: Page, path: string) => signedIn(page, t.url, cookie, path) };
  }

  async function signedIn(page: Page, url: string, cookie: string, path: string) {
    await page.context().addCookies([{ name: 'ot_panel', value: cookie, url }]);
    const res = await page.goto(`${url}${path}`);
    assert.equal(res?.status(), 200, path);
  }

  test('no keys: every production page says payments are off and why, and who turns them on; the sandbox says nothing', async () => {
    const { open } = await server({});
    for (const [size, viewport] of SCREEN_SIZES) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await open(page, '/panel?env=production');
        const off = page.locator('[data-testid="payments-off"]');
        assert.match(
          (await off.textContent())!,
          /^Payments are off: no payment processor is configured for production\. Buyers cannot pay[^]*STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY\) and then opentill stripe setup, which prints STRIPE_WEBHOOK_SECRET/,
        );
        assert.equal(await page.locator('[data-testid="payments-events-off"]').count(), 0);
        assert.deepEqual(await seriousViolations(page), [], `overview (${size})`);
        await screenshot(page, `${ARTIFACTS}panel-payments-off-${size}.png`, { fullPage: true });

        await open(page, '/panel/products?env=production');
        assert.equal(await off.count(), 1, 'on every page of production');
        await open(page, '/panel?env=sandbox');
        assert.equal(await page.locator('[data-testid^="payments-"]').count(), 0, 'the sandbox always takes payments');
      } finally {
        await context.close();
      }
    }
  });

  test("Stripe's keys without the webhook signing secret: payments go through, but the panel says Stripe's events are refused and what the operator runs", async () => {
    const { open } = await server(KEYS);
    for (const [size, viewport] of SCREEN_SIZES) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await open(page, '/panel?env=production');
        assert.equal(await page.locator('[data-testid="payments-off"]').count(), 0, 'payments are not off');
        assert.match(
          (await page.locator('[data-testid="payments-events-off"]').textContent())!,
          /^Stripe's events are refused: STRIPE_WEBHOOK_SECRET is not set\. Payments go through, but a refund made or a dispute opened in Stripe's dashboard does not reach your transactions[^]*runs opentill stripe setup and sets the signing secret it prints\.$/,
        );
        assert.deepEqual(await seriousViolations(page), [], `overview (${size})`);
        await screenshot(page, `${ARTIFACTS}panel-payments-events-off-${size}.png`, { fullPage: true });
        await open(page, '/panel?env=sandbox');
        assert.equal(await page.locator('[data-testid^="payments-"]').count(), 0);
      } finally {
        await context.close();
      }
    }
  });

  test('the overview with a EUR sale names the table and the rate its USD figures use, and what netPriceInUSD is', async () => {
    const { v, open } = await server({});
    const product = await v.product({
      name: 'App',
      type: 'ONETIME',
      prices: [
        { currency: 'USD', value: 49 },
        { currency: 'EUR', value: 45 },
      ],
    });
    await v.buy(product.id, { country: 'DE', currency: 'EUR' });
    await v.buy(product.id);
    for (const [size, viewport] of SCREEN_SIZES) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await open(page, '/panel?env=sandbox');
        assert.match(
          (await page.locator('[data-testid="usd-basis"]').textContent())!,
          /^USD figures here convert other currencies at the exchange rates of \d{4}-\d\d-\d\d, the same rate for every day shown: 1 EUR = \d+\.\d{4} USD\.$/,
        );
        assert.match((await page.locator('[data-testid="net-usd-basis"]').textContent())!, /netPriceInUSD/);
        assert.deepEqual(await seriousViolations(page), [], `overview (${size})`);
        await screenshot(page, `${ARTIFACTS}panel-usd-rates-${size}.png`, { fullPage: true });
      } finally {
        await context.close();
      }
    }
  });

  test('configured (keys and webhook secret): no notice; the sandbox through Stripe test mode without its secret names its own variable and command', async () => {
    const { open } = await server({
      ...KEYS,
      STRIPE_WEBHOOK_SECRET: 'whsec_panel_notice',
      STRIPE_SANDBOX_SECRET_KEY: 'sk_test_panel_sandbox',
      STRIPE_SANDBOX_PUBLISHABLE_KEY: 'pk_test_panel_sandbox',
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await open(page, '/panel?env=production');
      assert.equal(await page.locator('[data-testid^="payments-"]').count(), 0);
      await open(page, '/panel?env=sandbox');
      assert.match(
        (await page.locator('[data-testid="payments-events-off"]').textContent())!,
        /STRIPE_SANDBOX_WEBHOOK_SECRET is not set[^]*runs opentill stripe setup --sandbox and/,
      );
    } finally {
      await context.close();
    }
  });
});
