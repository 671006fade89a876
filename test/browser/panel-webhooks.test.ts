import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The panel's webhooks in Chromium (docs/decisions.md §27): on Developers a vendor adds an endpoint and
 * sees its secret once, sends a test event, reads the delivery log with each event's status and body,
 * replays one, sees a disabled endpoint marked, and removes it; production refuses a local URL. Axe-clean,
 * shot at desktop and phone size (test-artifacts/panel-webhooks-*.png).
 */
describe('the panel: webhooks in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let receiver: Receiver;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    receiver = await startReceiver();
    browser = await sharedChromium();
    const { token } = await t.services.panelInvites.issue(v.vendor.id);
    await t.services.panelInvites.accept(token, 'a long enough passphrase');
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  test('add, secret once, test, the log with a replay, a disabled endpoint marked, remove; at desktop and phone size', async () => {
    for (const [size, viewport] of SCREEN_SIZES) {
      receiver.received.length = 0;
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${t.url}/panel`);
      await page.fill('#email', v.vendor.email);
      await page.fill('#password', 'a long enough passphrase');
      await page.click('button[type="submit"]');
      await page.goto(`${t.url}/panel/developers?env=sandbox`);
      await page.fill('input[name="url"]', `${receiver.url}/hooks/${size}`);
      await page.click('[data-testid="add-endpoint"]');
      const secret = (await page.locator('#new-webhook-secret').textContent())!;
      assert.match(secret, /^whsec_/);
      assert.equal(await page.locator('[data-testid="authorization"]').count(), 0, 'not shown as a credential');
      receiver.useSecret(secret);
      assert.deepEqual(await seriousViolations(page), [], `developers (${size})`);
      await screenshot(page, `${ARTIFACTS}panel-webhooks-developers-${size}.png`, { fullPage: true });
      await page.reload();
      assert.equal(await page.locator('#new-webhook-secret').count(), 0, 'the secret is shown once');

      await page.locator('[data-testid="endpoint"]').last().locator('[data-testid="test"]').click();
      assert.match((await page.locator('[role="status"]').first().textContent())!, /test event was delivered/);
      assert.ok(receiver.received.at(-1)!.verified);

      const product = await v.product({
        type: 'ONETIME',
        name: 'Acme Desktop',
        prices: [{ currency: 'USD', value: 49 }],
      });
      const id = await v.buy(product.id);
      await t.services.webhooks.runDue();
      await page.goto(`${t.url}/panel/webhooks?env=sandbox`);
      assert.equal(await page.locator('h1').textContent(), 'Webhook deliveries');
      const row = page.locator('[data-testid="event"]', { hasText: id }).first();
      assert.equal(await row.getAttribute('data-status'), 'DELIVERED');
      assert.match((await row.textContent())!, /transaction\.new/);
      assert.deepEqual(await seriousViolations(page), [], `log (${size})`);
      await screenshot(page, `${ARTIFACTS}panel-webhooks-log-${size}.png`, { fullPage: true });
      await row.locator('[data-testid="replay"]').click();
      assert.match((await page.locator('[role="status"]').first().textContent())!, /sent again/);
      await t.services.webhooks.runDue();
      const again = receiver.accepted().filter((r) => r.json.data?.id === id);
      assert.equal(again.length, 2);
      assert.equal(again[0]!.headers['webhook-id'], again[1]!.headers['webhook-id']);
      assert.doesNotThrow(() =>
        new Webhook(secret).verify(again[1]!.body, again[1]!.headers as Record<string, string>),
      );

      // A disabled endpoint is marked, with why.
      const [endpoint] = (await t.services.webhooks.list(v.scope())).slice(-1);
      await t.services.store.webhooks.disableEndpoint(
        endpoint!.id,
        new Date().toISOString(),
        'Every try failed for 3 days.',
      );
      await page.goto(`${t.url}/panel/developers?env=sandbox`);
      assert.match(
        (await page.locator('[data-testid="endpoint"]').last().textContent())!,
        /Disabled.*Every try failed for 3 days/,
      );
      assert.deepEqual(await seriousViolations(page), [], `disabled (${size})`);
      await page.locator('[data-testid="endpoint"]').last().locator('[data-testid="enable"]').click();
      assert.match((await page.locator('[role="status"]').first().textContent())!, /enabled again/);
      assert.match((await page.locator('[data-testid="endpoint"]').last().textContent())!, /Enabled/);
      await page.locator('[data-testid="endpoint"]').last().locator('[data-testid="remove"]').click();
      assert.match((await page.locator('[role="status"]').first().textContent())!, /removed/);
      assert.equal(await page.locator('[data-testid="endpoint"]').count(), 0);

      await page.goto(`${t.url}/panel/developers?env=production`);
      await page.fill('input[name="url"]', 'https://127.0.0.1/hooks');
      await page.click('[data-testid="add-endpoint"]');
      assert.match((await page.locator('.alert.bad').first().textContent())!, /not a public address/);
      assert.equal(await page.locator('[data-testid="endpoint"]').count(), 0);
      await context.close();
    }
  });
});
