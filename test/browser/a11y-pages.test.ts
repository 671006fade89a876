import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fixedClock } from '../../src/domain/clock.ts';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * An axe-core scan, in Chromium at desktop and phone sizes, of the pages the other browser tests
 * do not scan: the landing page, the API reference (Scalar), the customer's management page (a subscription and a saved card),
 * the admin tool (list and detail), the panel invitation and its done page, and the problem pages
 * (a product that does not exist, an expired management link, a used invitation). No serious or
 * critical finding on any; screenshots go to test-artifacts/a11y-*.png. (The invoice is a PDF.)
 */

describe('accessibility of the remaining pages in Chromium (axe-core)', () => {
  const clock = fixedClock(new Date());
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let retiredId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, clock, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    const plan = await v.product({
      type: 'SUBSCRIPTION',
      chargeFrequency: 'MONTHLY',
      name: 'Acme Cloud',
      prices: [
        { currency: 'USD', value: 8 },
        { currency: 'EUR', value: 7.5 },
      ],
    });
    const vault = await v.product({
      type: 'VAULTED',
      name: 'Acme Pay-as-you-go',
      prices: [{ currency: 'USD', value: 0 }],
    });
    const app = await v.product({
      type: 'ONETIME',
      name: 'Acme Desktop',
      issuesLicences: true,
      prices: [{ currency: 'USD', value: 49 }],
    } as never);
    await v.buy(plan.id, { email: 'greta@example.com', firstName: 'Greta', lastName: 'Berg', country: 'DE' });
    await v.buy(vault.id, { email: 'greta@example.com', country: 'DE' });
    await v.buy(app.id, { email: 'greta@example.com', country: 'DE' });
    // An archived product (docs/decisions.md §28): its checkout says it is no longer sold.
    const retired = await v.product({ type: 'ONETIME', name: 'Acme Legacy', prices: [{ currency: 'USD', value: 9 }] });
    retiredId = (await t.services.catalog.archiveProduct(v.scope(), retired.id)).id;
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const manageLink = async () =>
    (await v.api('/v1/generate-url-to-manage-transactions/greta%40example.com')).json.url as string;
  const adminLink = async () => (await v.api('/v1/generate-url-to-admin')).json.url as string;
  const inviteLink = async () => `${t.url}/panel/invite/${(await t.services.panelInvites.issue(v.vendor.id)).token}`;

  /**
   * Each page: how to reach it in a fresh page (a link is made anew for each size, as some are
   * single-use), the status expected, and what it must show.
   */
  const PAGES: { name: string; open: (page: Page) => Promise<void>; status: number; heading: RegExp }[] = [
    { name: 'landing', open: async (p) => void (await p.goto(`${t.url}/`)), status: 200, heading: /./ },
    {
      name: 'docs',
      open: async (p) => {
        await p.goto(`${t.url}/docs`);
        // Scalar renders the reference in the browser: wait for the document's title to be shown.
        await p.locator('h1').first().waitFor({ timeout: 15_000 });
      },
      status: 200,
      heading: /opentill/i,
    },
    {
      // Opened from a sandbox link: the server picker offers the sandbox first.
      name: 'docs-sandbox',
      open: async (p) => {
        await p.goto(`${t.url}/sandbox/docs`);
        await p.locator('h1').first().waitFor({ timeout: 15_000 });
      },
      status: 200,
      heading: /opentill/i,
    },
    {
      name: 'manage',
      open: async (p) => void (await p.goto(await manageLink())),
      status: 200,
      heading: /Your purchases/,
    },
    {
      name: 'admin-list',
      open: async (p) => void (await p.goto(await adminLink())),
      status: 200,
      heading: /Transactions/,
    },
    {
      name: 'admin-detail',
      open: async (p) => {
        await p.goto(await adminLink());
        await p.locator('[data-testid="row"] a').first().click();
        await p.locator('[data-testid="status"]').waitFor();
      },
      status: 200,
      heading: /./,
    },
    {
      name: 'panel-invite',
      open: async (p) => void (await p.goto(await inviteLink())),
      status: 200,
      heading: /password/i,
    },
    {
      name: 'panel-invite-error',
      open: async (p) => {
        await p.goto(await inviteLink());
        // The browser's own check (minlength) would stop it first: the server's answer is what is scanned.
        await p.locator('#password').evaluate((e) => e.removeAttribute('minlength'));
        await p.locator('#password').fill('short');
        await p.locator('button[type="submit"]').click();
        await p.locator('[aria-invalid="true"]').first().waitFor();
      },
      status: 400,
      heading: /password/i,
    },
    {
      name: 'panel-invite-done',
      open: async (p) => {
        await p.goto(await inviteLink());
        await p.locator('input[type="password"]').first().fill('a long enough password');
        await p.locator('button[type="submit"]').click();
        await p.waitForURL(/invite-set/);
      },
      status: 200,
      heading: /Your password is set/,
    },
    {
      name: 'panel-invite-used',
      open: async (p) => {
        const url = await inviteLink();
        await t.services.panelInvites.accept(url.split('/').pop()!, 'a long enough password');
        await p.goto(url);
      },
      status: 410,
      heading: /no longer be used/,
    },
    {
      name: 'product-404',
      open: async (p) => void (await p.goto(`${t.url}/sandbox/payment/product/product_doesnotexist`)),
      status: 404,
      heading: /./,
    },
    {
      name: 'product-archived',
      open: async (p) => void (await p.goto(`${t.url}/sandbox/payment/product/${retiredId}`)),
      status: 403,
      heading: /./,
    },
    {
      name: 'manage-expired',
      open: async (p) => {
        const url = await manageLink();
        clock.advance(2 * 3600_000);
        try {
          await p.goto(url);
        } finally {
          clock.advance(-2 * 3600_000);
        }
      },
      status: 410,
      heading: /expired/,
    },
    {
      name: 'manage-forged',
      open: async (p) => void (await p.goto(`${(await manageLink()).slice(0, -3)}abc`)),
      status: 404,
      heading: /not valid/,
    },
  ];

  for (const { name, open, status, heading } of PAGES) {
    for (const [size, viewport] of SCREEN_SIZES) {
      test(`${name} has no serious or critical axe-core finding (${size})`, async () => {
        const context = await browser.newContext({ locale: 'en-US', viewport });
        const page = await context.newPage();
        let last = 0;
        page.on('response', (r) => {
          if (r.request().resourceType() === 'document') last = r.status();
        });
        try {
          await open(page);
          assert.equal(last, status, `${name}: HTTP status`);
          assert.match((await page.locator('h1').first().textContent()) ?? '', heading);
          await screenshot(page, `${ARTIFACTS}a11y-${name}-${size}.png`, { fullPage: true });
          assert.deepEqual(await seriousViolations(page), [], name);
        } finally {
          await context.close();
        }
      });
    }
  }
});
