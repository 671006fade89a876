import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CUSTOMER_EMAIL_KINDS } from '../../src/domain/model.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { signedUpInBrowser } from '../helpers/panel-world.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, TEST_CARD, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The panel's E-mails page in a real Chromium, with SMTP on a loopback server: the vendor saves a
 * sender name and turns a kind off with the form, sends itself a test, and reads the list of recent
 * e-mails (one failed, standing out). The page and the receipt's preview, whose e-mail shows styled
 * in its sandboxed frame, are shot at desktop and phone size and scanned with axe.
 */
describe('panel e-mails page in Chromium', () => {
  let t: TestApp;
  let inbox: SmtpInbox;
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    inbox = await startSmtpInbox();
    t = await startTestApp('sqlite', {
      port,
      env: {
        BASE_URL: `http://127.0.0.1:${port}`,
        SMTP_URL: inbox.url,
        SMTP_FROM: 'receipts@opentill.test',
        SMTP_SANDBOX_TO: 'customers',
        PANEL_SIGNUP: 'open',
      },
    });
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await inbox?.close();
  });

  /**
   * Nothing wider than the screen, the current tab on it, and no serious axe finding. The preview's
   * frame runs no script (axe cannot enter it and waits): the e-mail in it is scanned on its own.
   */
  async function fits(page: Page, name: string, width: number) {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `${name}: nothing wider than the screen (${overflow}px)`);
    const tab = (await page.locator('nav a[aria-current="page"]').boundingBox())!;
    assert.ok(
      tab.x >= 0 && tab.x + tab.width <= width,
      `${name}: the current tab is on the screen (${tab.x}+${tab.width})`,
    );
    assert.deepEqual(
      await seriousViolations(page, { exclude: ['iframe'] }),
      [],
      `${name}: no serious or critical accessibility violation`,
    );
  }

  test('settings saved with the form, a test sent to the vendor, a failed e-mail standing out; page and preview at every size', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const { vendorId } = await signedUpInBrowser(page, t.url);

    await page.click('nav >> text=E-mails');
    assert.equal(await page.locator('h1').textContent(), 'E-mails');
    assert.match((await page.locator('[data-testid="emails-on"]').textContent())!, /sent from receipts@opentill\.test/);
    await page.fill('#senderName', 'Acme Billing');
    await page.uncheck('input[name="send_RENEWAL_UPCOMING"]');
    await page.click('[data-testid="save-emails"]');
    assert.equal(await page.locator('[role="status"]').textContent(), 'The e-mail settings are saved.');
    assert.equal(await page.locator('#senderName').inputValue(), 'Acme Billing');
    assert.equal(await page.locator('input[name="send_RENEWAL_UPCOMING"]').isChecked(), false);
    assert.deepEqual((await t.services.catalog.requireVendor(vendorId)).emails.off, ['RENEWAL_UPCOMING']);

    await page.click('[data-kind="RECEIPT"] [data-testid="send-test"]');
    assert.equal(
      await page.locator('[role="status"]').textContent(),
      'A test e-mail is on its way to founder@acme.test.',
    );
    const tests = inbox.to('founder@acme.test');
    assert.equal(tests.length, 1);
    assert.deepEqual(tests[0]!.from?.value, [{ name: 'Acme Billing', address: 'receipts@opentill.test' }]);
    assert.deepEqual(
      (await t.services.catalog.requireVendor(vendorId)).emails.off,
      ['RENEWAL_UPCOMING'],
      'a test saves nothing',
    );

    // Two customers: one mailbox that exists, one the mail server does not know.
    const scope = { vendorId, environment: 'sandbox' as const };
    const product = await t.services.catalog.createProduct(scope, {
      name: 'Acme Pro',
      type: 'ONETIME',
      issuesLicences: true,
      prices: [{ currency: 'USD', value: 49 }],
    });
    inbox.unknownMailboxes.add('gone@example.com');
    for (const email of ['ann@example.com', 'gone@example.com']) {
      assert.equal(
        (await t.services.purchases.purchase(scope, { productId: product.id, email, country: 'US', card: TEST_CARD }))
          .status,
        'PAID',
      );
    }
    await runWorkerOnce(t.services);

    for (const [size, viewport] of SCREEN_SIZES) {
      await page.setViewportSize(viewport);
      await page.goto(`${t.url}/panel/emails?env=sandbox`);
      const failed = page.locator('tr.failed');
      assert.equal(await failed.count(), 1);
      assert.match((await failed.textContent())!, /gone@example\.com[\s\S]*Failed[\s\S]*No such mailbox/);
      assert.equal(await failed.locator('.why').isVisible(), true, `${size}: the reason is visible`);
      assert.equal(await page.locator('[data-testid="send-test"]').first().isVisible(), true);
      await screenshot(page, `${ARTIFACTS}panel-emails-${size}.png`, { fullPage: true });
      await fits(page, `e-mails (${size})`, viewport.width);

      await page.click('[data-kind="RECEIPT"] [data-testid="preview"]');
      assert.equal(await page.locator('h1').textContent(), 'Preview: Receipt');
      const frame = page.frameLocator('[data-testid="email-html"]');
      assert.equal(await frame.locator('h1').textContent(), 'Thank you for your purchase');
      // Styled: the e-mail's inline styles apply inside the frame (the page's policy allows style attributes).
      assert.equal(await frame.locator('h1').evaluate((h) => getComputedStyle(h).fontSize), '22px');
      const box = (await page.locator('[data-testid="email-html"]').boundingBox())!;
      const content = (await page.locator('.panel .content').boundingBox())!;
      const emailHeight = await frame.locator('html').evaluate((e) => e.scrollHeight);
      assert.ok(
        box.height >= emailHeight,
        `${size}: the frame is as tall as its e-mail (${box.height} for ${emailHeight})`,
      );
      assert.ok(
        box.width >= content.width - 60,
        `${size}: the frame takes the content's width (${box.width} of ${content.width})`,
      );
      assert.match((await page.locator('[data-testid="email-text"]').textContent())!, /EXAMPLE-LICENCE-KEY/);
      // The frame has the page's origin, so a full-page capture lays it out with the page (docs/decisions.md §36).
      await screenshot(page, `${ARTIFACTS}panel-email-preview-${size}.png`, { fullPage: true });
      await fits(page, `preview (${size})`, viewport.width);
    }
    await context.close();
  });

  test('every kind of e-mail, opened on its own as a mail client shows it, has no serious accessibility finding', async () => {
    const vendor = await t.services.catalog.createVendor({ name: 'Acme Tools', email: 'owner@tools.test' });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    for (const kind of CUSTOMER_EMAIL_KINDS) {
      await page.setContent(t.services.emails.preview(vendor, kind, 'production').html);
      assert.deepEqual(await seriousViolations(page), [], kind);
    }
    await context.close();
  });
});
