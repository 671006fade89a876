import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { isPayment } from '../../src/domain/payments/ledger.ts';
import { stripeGateway } from '../../src/gateways/stripe-gateway.ts';
import { setupStripe } from '../../src/gateways/stripe-setup.ts';
import { html, sendPage } from '../../src/http/pages/layout.ts';
import { ARTIFACTS, freePort, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * Production checkout in a real Chromium with Stripe's Payment Element (the stand-in's Stripe.js and
 * API on loopback, the production gateway pointed at it): the card is typed into the element's frame,
 * 3-D Secure happens in the bank's challenge frame, a decline is shown on the page and the same element
 * then pays once, a trial saves the card with a SetupIntent. The page's CSP must let Stripe.js work:
 * any violation, in the page or in a frame, fails the test. Screenshots go to test-artifacts/.
 */
describe("production checkout with Stripe's Payment Element in Chromium", () => {
  let s: StripeStandIn;
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  const products: Record<'onetime' | 'subscription' | 'trial', string> = { onetime: '', subscription: '', trial: '' };
  /** CSP violations and uncaught errors, in every page and frame of every context. */
  const problems: string[] = [];

  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual' });
    const port = await freePort();
    const keys: { secretKey: string; publishableKey: string; webhookSecret: string | undefined } = {
      secretKey: s.secretKey,
      publishableKey: s.publishableKey,
      webhookSecret: undefined,
    };
    const gateway = stripeGateway({ keys, apiUrl: s.url, jsUrl: s.jsUrl, timeoutMs: 10_000 });
    t = await startTestApp('sqlite', {
      port,
      env: { BASE_URL: `http://127.0.0.1:${port}` },
      gateways: { production: gateway },
    });
    keys.webhookSecret = (
      await setupStripe({ keys, apiUrl: s.url, webhookUrl: `${t.url}/webhooks/stripe` })
    ).signingSecret!;
    v = await t.newVendor('Acme Software');
    const product = async (input: Parameters<TestVendor['product']>[0]) => (await v.product(input, 'production')).id;
    products.onetime = await product({
      type: 'ONETIME',
      name: 'Acme Pro',
      description: 'Lifetime licence for one seat',
      prices: [{ currency: 'USD', value: 49 }],
    });
    products.subscription = await product({
      type: 'SUBSCRIPTION',
      chargeFrequency: 'MONTHLY',
      name: 'Acme Cloud',
      prices: [{ currency: 'USD', value: 8 }],
    } as never);
    products.trial = await product({
      type: 'SUBSCRIPTION',
      chargeFrequency: 'MONTHLY',
      trialDays: 14,
      name: 'Acme Team',
      prices: [{ currency: 'USD', value: 15 }],
    } as never);
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await s?.close();
  });

  afterEach(() =>
    assert.deepEqual(problems.splice(0), [], 'no CSP violation and no script error in any page or frame'),
  );

  /** A browser context whose pages and frames (the element's, the challenge's) report CSP violations and errors. */
  async function context(options: {
    viewport: { width: number; height: number };
    isMobile?: boolean;
  }): Promise<BrowserContext> {
    const ctx = await browser.newContext({ locale: 'en-US', ...options, hasTouch: options.isMobile ?? false });
    await ctx.exposeBinding('__reportViolation', ({ frame }, text: string) => problems.push(`${frame.url()}: ${text}`));
    await ctx.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { __reportViolation(text: string): void }).__reportViolation(
          `CSP ${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} (${e.sourceFile}:${e.lineNumber})`,
        );
      });
    });
    ctx.on('console', (msg) => {
      if (/Content.Security.Policy/i.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    ctx.on('weberror', (e) => problems.push(`error: ${e.error().message}`));
    return ctx;
  }

  const checkoutUrl = (productId: string) => `${t.url}/payment/product/${productId}`;
  const element = (page: Page) => page.frameLocator('iframe[title="Secure payment input frame"]');

  async function typeCard(page: Page, card: string) {
    const frame = element(page);
    await frame.getByLabel('Card number').fill(card);
    await frame.getByLabel('Expiration date').fill('12 / 34');
    await frame.getByLabel('Security code').fill('123');
  }

  async function open(page: Page, productId: string, email: string) {
    await page.goto(checkoutUrl(productId));
    await page.fill('#email', email);
    // The element's frame has loaded and sized itself.
    await element(page).getByLabel('Card number').waitFor();
  }

  const receiptOf = async (page: Page) => {
    await page.locator('#receipt').waitFor({ timeout: 15_000 });
    return {
      text: (await page.locator('#receipt').textContent())!,
      id: (await page.locator('[data-testid="transaction-id"]').textContent())!,
    };
  };
  const paymentsOf = async (transactionId: string) =>
    (await t.services.store.entries.listForTransaction(transactionId)).filter(isPayment);
  const settleEvents = async () => {
    await s.deliverAll();
    await t.services.processorEvents.runDue();
  };

  /** The page's layout: nothing wider than the screen, the element's frame inside the form, between the coupon and Pay, readable. */
  async function assertLayout(page: Page, width: number) {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, `no horizontal scrolling at ${width}px`);
    const form = (await page.locator('#checkout').boundingBox())!;
    const frame = (await page.locator('#payment-element iframe').boundingBox())!;
    const coupon = (await page.locator('#coupon').boundingBox())!;
    const pay = (await page.locator('#pay').boundingBox())!;
    assert.ok(
      frame.x >= form.x - 1 && frame.x + frame.width <= form.x + form.width + 1,
      `the element is as wide as the form at most (${JSON.stringify({ frame, form })})`,
    );
    assert.ok(frame.y >= coupon.y + coupon.height, 'the element is below the coupon field');
    assert.ok(
      frame.y + frame.height <= pay.y,
      `the element ends above the Pay button (${JSON.stringify({ frame, pay })})`,
    );
    assert.ok(frame.height >= 150, `the element shows its fields (${frame.height}px)`);
    for (const label of ['Card number', 'Expiration date', 'Security code']) {
      const field = (await element(page).getByLabel(label).boundingBox())!;
      assert.ok(field.height >= 36, `${label} is tall enough to tap (${field.height}px)`);
      assert.ok(
        field.x >= frame.x && field.x + field.width <= frame.x + frame.width + 1,
        `${label} is inside the element`,
      );
      assert.ok(field.y + field.height <= frame.y + frame.height, `${label} is not cut off by the frame`);
    }
  }

  test('one-time purchase: 4242 typed into the element, the receipt; the page fits desktop and phone', async () => {
    const desktop = await context({ viewport: { width: 1280, height: 800 } });
    const page = await desktop.newPage();
    await open(page, products.onetime, 'desk@example.com');
    const csp = (await page.request.get(checkoutUrl(products.onetime))).headers()['content-security-policy']!;
    for (const directive of ['script-src', 'frame-src', 'connect-src'])
      assert.match(csp, new RegExp(`${directive} [^;]*${s.url.replace(/[.:/]/g, '\\$&')}`), csp);
    assert.equal(
      await page.locator('input[name^="card"], input[autocomplete^="cc-"]').count(),
      0,
      'the page has no card field of its own',
    );
    await typeCard(page, '4242 4242 4242 4242');
    assert.equal(await element(page).getByLabel('Card number').inputValue(), '4242 4242 4242 4242');
    await assertLayout(page, 1280);
    await screenshot(page, `${ARTIFACTS}stripe-checkout-desktop.png`, { fullPage: true });
    assert.deepEqual(
      await seriousViolations(page, { exclude: ['#payment-element iframe'] }),
      [],
      'production checkout',
    );

    const phoneContext = await context({ viewport: { width: 390, height: 844 }, isMobile: true });
    const phone = await phoneContext.newPage();
    await open(phone, products.onetime, 'phone@example.com');
    await typeCard(phone, '4242424242424242');
    await assertLayout(phone, 390);
    await screenshot(phone, `${ARTIFACTS}stripe-checkout-phone.png`, { fullPage: true });
    assert.deepEqual(
      await seriousViolations(phone, { exclude: ['#payment-element iframe'] }),
      [],
      'production checkout, phone',
    );
    await phoneContext.close();

    await page.click('#pay');
    await page.waitForURL(/\/confirm\//);
    const receipt = await receiptOf(page);
    assert.match(receipt.text, /Payment of \$49\.00 received/);
    await screenshot(page, `${ARTIFACTS}stripe-checkout-receipt.png`, { fullPage: true });
    assert.deepEqual(await seriousViolations(page), [], 'production receipt');
    assert.equal((await paymentsOf(receipt.id)).length, 1);
    const intents = (await s.client().paymentIntents.list({ limit: 100 })).data.filter((i) => i.status === 'succeeded');
    assert.deepEqual(
      intents.map((i) => [i.amount, i.currency]),
      [[4900, 'usd']],
    );
    await desktop.close();
  });

  test('subscription with 4000 0025 0000 3155: the bank asks, "Complete authentication", the receipt; one payment', async () => {
    const ctx = await context({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await open(page, products.subscription, 'sca@example.com');
    await typeCard(page, '4000 0025 0000 3155');
    await page.click('#pay');
    const challenge = page.frameLocator('iframe[title="3D Secure authentication"]');
    await challenge.getByRole('button', { name: 'Complete authentication' }).waitFor();
    await screenshot(page, `${ARTIFACTS}stripe-checkout-3ds.png`);
    await challenge.getByRole('button', { name: 'Complete authentication' }).click();
    await page.waitForURL(/\/confirm\//);
    const receipt = await receiptOf(page);
    assert.match(receipt.text, /Payment of \$8\.00 received/);
    assert.equal((await paymentsOf(receipt.id)).length, 1);
    await settleEvents();
    await page.reload();
    assert.match((await receiptOf(page)).text, /Payment of \$8\.00 received/);
    assert.equal((await paymentsOf(receipt.id)).length, 1, "Stripe's events and a reload of the receipt add nothing");
    const tx = (await t.services.store.transactions.find(v.scope('production'), receipt.id))!;
    assert.equal(tx.status, 'SUBSCRIPTION_STATUS_ACTIVE');
    await ctx.close();
  });

  test('a declined card is shown on the page; 4242 in the same element then pays once', async () => {
    const ctx = await context({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await open(page, products.onetime, 'declined@example.com');
    await typeCard(page, '4000 0000 0000 0002');
    await page.click('#pay');
    const error = page.locator('#card-error');
    await error.waitFor({ state: 'visible' });
    assert.match((await error.textContent())!, /declined/i);
    assert.equal(await page.locator('#pay').isEnabled(), true, 'the customer may try again');
    assert.match(page.url(), /\/payment\/product\/[^/]+$/, 'still on the form');
    await screenshot(page, `${ARTIFACTS}stripe-checkout-declined.png`, { fullPage: true });

    await element(page).getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.click('#pay');
    await page.waitForURL(/\/confirm\//);
    const receipt = await receiptOf(page);
    assert.match(receipt.text, /Payment of \$49\.00 received/);
    await settleEvents();
    assert.equal((await paymentsOf(receipt.id)).length, 1, 'one payment');
    const listed = await v.api('/v1/transactions/declined%40example.com', { environment: 'production' });
    assert.equal(listed.json.length, 1, 'one transaction for the customer');
    // One PaymentIntent: the declined charge and the paid one, the amount opentill priced.
    const intent = await s.client().paymentIntents.retrieve((await paymentsOf(receipt.id))[0]!.externalId!);
    assert.deepEqual([intent.status, intent.amount, intent.currency], ['succeeded', 4900, 'usd']);
    const charges = (type: string) =>
      s
        .events()
        .filter((e) => e.type === type && (e.data.object as { payment_intent?: string }).payment_intent === intent.id);
    assert.equal(charges('charge.failed').length, 1, 'the declined card');
    assert.equal(charges('charge.succeeded').length, 1, 'paid once');
    await ctx.close();
  });

  test('a trial saves the card with a SetupIntent: "Your free trial has started"', async () => {
    const ctx = await context({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await open(page, products.trial, 'trial@example.com');
    assert.equal((await page.locator('#pay').textContent())!.trim(), 'Start free trial');
    await typeCard(page, '4242 4242 4242 4242');
    const setups = () => s.events().filter((e) => e.type === 'setup_intent.succeeded');
    const before = setups().length;
    await page.click('#pay');
    await page.waitForURL(/\/confirm\//);
    const receipt = await receiptOf(page);
    assert.match(receipt.text, /Your free trial has started/);
    await screenshot(page, `${ARTIFACTS}stripe-checkout-trial.png`, { fullPage: true });
    assert.equal((await paymentsOf(receipt.id)).length, 0, 'nothing charged now');
    assert.equal(setups().length, before + 1, 'a SetupIntent, confirmed');
    const tx = (await t.services.store.transactions.find(v.scope('production'), receipt.id))!;
    assert.equal(tx.status, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL');
    assert.ok(tx.paymentMethodId, 'the card is on file for the first charge');
    await ctx.close();
  });

  test("with Stripe's own hosts, the page's CSP allows what Stripe documents for Stripe.js", async () => {
    // The stand-in serves Stripe.js, its frames and its API from one origin; Stripe uses three hosts.
    const real = stripeGateway({
      keys: { secretKey: 'sk_test_x', publishableKey: 'pk_test_x', webhookSecret: undefined },
      jsUrl: 'https://js.stripe.com/v3/',
      timeoutMs: 1000,
    });
    assert.equal(real.cardEntry.kind, 'browser');
    const entry = real.cardEntry as Extract<typeof real.cardEntry, { kind: 'browser' }>;
    const app = Fastify();
    app.get('/', (_request, reply) =>
      sendPage(reply, {
        status: 200,
        title: 't',
        body: html`<p>t</p>`,
        processorScript: { url: entry.scriptUrl, origins: entry.origins },
      }),
    );
    const csp = (await app.inject('/')).headers['content-security-policy'] as string;
    await app.close();
    const directive = (name: string) =>
      csp
        .split('; ')
        .find((d) => d.startsWith(`${name} `))
        ?.split(' ') ?? [];
    assert.ok(directive('script-src').includes('https://js.stripe.com'), csp);
    for (const frame of ['https://js.stripe.com', 'https://hooks.stripe.com'])
      assert.ok(directive('frame-src').includes(frame), `frame-src ${frame}: ${csp}`);
    assert.ok(directive('connect-src').includes('https://api.stripe.com'), csp);
  });
});
