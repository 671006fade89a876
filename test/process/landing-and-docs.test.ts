import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, screenshot } from '../../support/chromium.ts';
import { freePort, ServerProcess, within } from '../helpers/server-process.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * `/` and `/docs` of a real `opentill serve`, over HTTP and in Chromium at desktop and phone size:
 * the landing page points to the panel, the docs and the health check; the API reference is Scalar,
 * its script served by this server (no CDN), listing the public price endpoint, with no CSP
 * violation and no console error. Screenshots go to test-artifacts/.
 */
const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

/** Every console error, CSP violation and request that left this server, while the page is used. */
function watch(page: Page, origin: string) {
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:'))
      problems.push(`request elsewhere: ${request.url()}`);
  });
  return problems;
}

async function cspViolations(page: Page) {
  await page.addInitScript(() => {
    (window as unknown as { violations: string[] }).violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { violations: string[] }).violations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { violations: string[] }).violations);
}

describe('landing page and API reference', () => {
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'opentill-landing-'));
    server = new ServerProcess(await freePort(), dataDir, {
      env: { OPENTILL_DEMO: 'false', OPENTILL_WORKER: 'false' },
    });
    await within(server.started(), 'the start');
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('/ is a page that says what opentill is and links to the panel, the docs and the health check', async () => {
    const res = await fetch(`${server.url}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const body = await res.text();
    assert.match(body, /open-source, self-hostable payment platform/);
    for (const href of ['/panel', '/docs', '/healthz']) assert.match(body, new RegExp(`href="${href}"`));
  });

  test('/openapi.json lists the public price endpoint without credentials, and /docs serves Scalar from this server', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const price = doc.paths['/public/v1/price/{productId}']?.get;
    assert.ok(price, Object.keys(doc.paths).join(', '));
    assert.deepEqual(price.security, []);
    assert.deepEqual(price.tags, ['public']);
    assert.ok(!Object.keys(doc.paths).some((p) => p.includes('checkout')), 'the checkout start is not listed');

    const res = await fetch(`${server.url}/docs/`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    assert.doesNotMatch(csp, /script-src[^;]*unsafe/);
    const page = await res.text();
    assert.match(page, /<script src="js\/scalar\.js"/);
    assert.doesNotMatch(page, /https?:\/\/(?!localhost|127\.0\.0\.1)/, 'no third-party URL on the page');
    for (const tag of page.match(/<script[^>]*>/g) ?? []) assert.ok(tag.includes(`nonce="${nonce}"`), tag);
    // A fresh nonce on every answer.
    const again = (await fetch(`${server.url}/docs/`)).headers.get('content-security-policy') ?? '';
    assert.notEqual(/'nonce-([^']+)'/.exec(again)?.[1], nonce);
    const script = await fetch(`${server.url}/docs/js/scalar.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await script.arrayBuffer()).byteLength > 100_000);
  });

  for (const size of SIZES) {
    test(`in Chromium (${size.name}): / and /docs show without a console error or a CSP violation`, async () => {
      const context = await browser.newContext({ viewport: size.viewport });
      try {
        const page = await context.newPage();
        const problems = watch(page, server.url);
        const violations = await cspViolations(page);

        await page.goto(`${server.url}/`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        assert.equal(await page.getByRole('link', { name: /Vendor panel/ }).getAttribute('href'), '/panel');
        await screenshot(page, `${ARTIFACTS}landing-${size.name}.png`, { fullPage: true });
        assert.deepEqual(await violations(), []);

        await page.goto(`${server.url}/docs`);
        assert.equal(new URL(page.url()).pathname, '/docs/');
        // The reference has rendered the document: its title, and the public price operation.
        await page.getByText('opentill Transaction Management API').first().waitFor({ timeout: 20_000 });
        const priceLink = page.getByText(/A product's price for a customer/).first();
        await priceLink.waitFor({ state: 'attached', timeout: 20_000 });
        if (size.name === 'desktop') {
          await priceLink.click();
          await page
            .getByRole('heading', { name: /A product's price for a customer/ })
            .first()
            .waitFor({ timeout: 20_000 });
          await screenshot(page, `${ARTIFACTS}docs-public-price-${size.name}.png`);
          await page.evaluate(() => window.scrollTo(0, 0));
        }
        await page.waitForTimeout(500);
        await screenshot(page, `${ARTIFACTS}docs-${size.name}.png`);

        // Opened from a sandbox link: the sandbox is the server chosen, with the credential it takes.
        await page.goto(`${server.url}/sandbox/docs`);
        assert.equal(new URL(page.url()).search, '?env=sandbox');
        await page.getByText('Sandbox: your sandbox credential').first().waitFor({ timeout: 20_000 });
        await page.waitForTimeout(500);
        await screenshot(page, `${ARTIFACTS}docs-sandbox-${size.name}.png`);
        if (size.name === 'desktop') {
          await page.getByText('Create a product', { exact: true }).first().click();
          await page.getByRole('heading', { name: 'Create a product' }).first().waitFor({ timeout: 20_000 });
          await page.waitForTimeout(500);
          await screenshot(page, `${ARTIFACTS}docs-create-product-${size.name}.png`);
        }
        assert.deepEqual(await violations(), []);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
