import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { sampleView } from '../../src/domain/notifications/customer-email-model.ts';
import { CUSTOMER_EMAIL_KINDS, type Vendor } from '../../src/domain/model.ts';
import { composeEmail } from '../../src/mail/email-templates.ts';
import { ARTIFACTS, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * Every customer e-mail as a mail client shows it (its HTML in Chromium, at desktop and phone width):
 * nothing wider than the screen, the button and links where the text says, no serious axe finding,
 * and a screenshot of each (test-artifacts/email-<kind>-<size>.png).
 */
const vendor: Vendor = {
  id: 'TC-VE_EXAMPLE',
  name: 'Acme Software with a rather long company name',
  email: 'owner@acme.test',
  createdAt: '2030-01-01T00:00:00.000Z',
  productionEnabled: true,
  allowConversion: true,
  adminFrameOrigins: [],
  sellerName: null,
  address: null,
  country: null,
  taxId: null,
  supportEmail: 'support@acme.test',
  logo: null,
  emails: { senderName: null, replyTo: null, off: [] },
  platformFee: null,
  suspension: null,
};

describe('customer e-mails as a mail client renders them', () => {
  let browser: Browser;
  before(async () => {
    browser = await sharedChromium();
  });
  after(() => browser?.close());

  for (const kind of CUSTOMER_EMAIL_KINDS) {
    test(`${kind}: fits a phone and a desktop, its links are the ones the text names`, async () => {
      const view = sampleView(vendor, kind, 'production', 'https://pay.acme.test');
      const email = composeEmail(view);
      for (const [size, viewport] of SCREEN_SIZES) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        try {
          // As a client shows it: no script runs, nothing is fetched.
          await page.route('**/*', (route) => route.abort());
          await page.setContent(email.html);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `${kind} is ${overflow}px wider than a ${size} screen`);
          assert.equal(await page.locator('h1').count(), 1);
          const hrefs = await page.locator('a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
          assert.ok(hrefs.includes(view.manageUrl), 'the management link');
          if (view.documentUrl) assert.ok(hrefs.includes(view.documentUrl), 'the invoice or credit note');
          assert.ok(hrefs.includes('mailto:support@acme.test'), 'the support address');
          for (const href of hrefs)
            assert.ok(email.text.includes(href.replace(/^mailto:/, '')), `${href} is in the plain text too`);
          assert.deepEqual(await seriousViolations(page), []);
          await screenshot(page, `${ARTIFACTS}email-${kind.toLowerCase()}-${size}.png`, { fullPage: true });
        } finally {
          await context.close();
        }
      }
    });
  }
});
