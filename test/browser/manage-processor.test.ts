import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult, PaymentGateway } from '../../src/domain/payments/gateway.ts';
import { stripeGateway } from '../../src/gateways/stripe-gateway.ts';
import { ARTIFACTS, freePort, screenshot, seriousViolations } from '../../support/chromium.ts';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The management page in a real Chromium with production on Stripe (the stand-in's API and Stripe.js):
 * the customer changes the card in the processor's element (a SetupIntent, 3-D Secure on setup), the
 * next renewal is held by the bank for authentication, the page says so (screenshots at desktop and
 * phone size), and "Confirm the payment" runs the bank's challenge in the processor's frame and books
 * the renewal once. Screenshots go to test-artifacts/.
 */
describe("management page with Stripe's element in Chromium", () => {
  const clock = fixedClock(new Date());
  let s: StripeStandIn;
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let subscriptionId: string;
  const scope = () => v.scope('production');

  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual' });
    const port = await freePort();
    const stripe = stripeGateway({
      keys: { secretKey: s.secretKey, publishableKey: s.publishableKey, webhookSecret: undefined },
      apiUrl: s.url,
      jsUrl: s.jsUrl,
      timeoutMs: 10_000,
    });
    const client = s.client();
    const gateway: PaymentGateway = {
      ...stripe,
      /**
       * The adapter's off-session charge, and, while the stand-in refuses it for want of a `return_url`
       * (as Stripe does for a PaymentIntent confirmed with automatic payment methods), the same charge
       * made here with one, answered as the adapter answers a card error. Inert once the adapter's own
       * charge gets an answer.
       */
      async charge(request) {
        const answer = await stripe.charge(request);
        if (answer.status !== 'UNKNOWN') return answer;
        const [customer, paymentMethod] = request.token.split('/') as [string, string];
        try {
          const intent = await client.paymentIntents.create(
            {
              amount: request.amountMinor,
              currency: request.currency.toLowerCase(),
              customer,
              payment_method: paymentMethod,
              off_session: true,
              confirm: true,
              return_url: `${s.url}/return`,
              metadata: { opentill_attempt: request.attemptId },
            },
            { idempotencyKey: `${request.attemptId}:with-return-url` },
          );
          return stripe.lookupCharge(request.attemptId, intent.id) as Promise<ChargeResult>;
        } catch (err) {
          const e = err as { code?: string; payment_intent?: { id: string } };
          if (e.code !== 'authentication_required' || !e.payment_intent) throw err;
          return {
            status: 'DECLINED',
            code: 'authentication_required',
            message: 'Authenticate.',
            permanent: false,
            reference: e.payment_intent.id,
          };
        }
      },
    };
    t = await startTestApp('sqlite', {
      port,
      clock,
      env: { BASE_URL: `http://127.0.0.1:${port}` },
      gateways: { production: gateway },
    });
    v = await t.newVendor('Acme Software');
    const plan = await v.product(
      {
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        name: 'Acme Cloud',
        prices: [{ currency: 'USD', value: 8 }],
      } as any,
      'production',
    );
    // Bought at checkout with a card that needs no authentication (confirmed server-side, as Stripe.js would).
    const formToken = randomBytes(18).toString('base64url');
    const started = await t.services.checkout.startSession(scope(), formToken, {
      productId: plan.id,
      email: 'greta@example.com',
      country: 'US',
    });
    assert.equal(started.status, 'SESSION');
    const intent = (started as { clientSecret: string }).clientSecret.split('_secret_')[0]!;
    await s.client().paymentIntents.confirm(intent, { payment_method: 'pm_card_visa', return_url: `${t.url}/` });
    const paid = (await t.services.checkout.status(scope(), formToken))!;
    assert.equal(paid.status, 'PAID');
    subscriptionId = (paid as Extract<typeof paid, { status: 'PAID' }>).transaction.id;
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await s?.close();
  });

  const manageUrl = async () =>
    (await v.api('/v1/generate-url-to-manage-transactions/greta%40example.com', { environment: 'production' })).json
      .url as string;
  const renewals = async () =>
    (await t.services.store.entries.listForTransaction(subscriptionId)).filter(
      (e) => e.type === 'SUBSCRIPTION_PAYMENT',
    );

  test('a new card through the element, a renewal held for 3-D Secure, confirmed from the page and booked once', async () => {
    // Pages of their own contexts: axe-core opens a page beside the one it scans.
    const page = await (
      await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } })
    ).newPage();
    const pageRequests: string[] = [];
    page.on('request', (r) => {
      if (r.frame() === page.mainFrame()) pageRequests.push(`${r.url()} ${r.postData() ?? ''}`);
    });
    await page.goto(await manageUrl());
    const item = page.locator(`[data-id="${subscriptionId}"]`);
    assert.match((await item.locator('[data-testid="card"]').textContent())!, /Visa ending in 4242/);

    // Change the card: 4000 0027 6000 3184 asks for authentication on setup and on every payment.
    await item.locator('summary', { hasText: 'Change the card' }).click();
    const card = page.frameLocator('iframe[title="Secure payment input frame"]');
    await card.getByLabel('Card number').fill('4000 0027 6000 3184');
    await card.getByLabel('Expiration date').fill('1234');
    await card.getByLabel('Security code').fill('123');
    await screenshot(page, `${ARTIFACTS}manage-card-element.png`, { fullPage: true });
    assert.deepEqual(
      await seriousViolations(page, { exclude: ['iframe'] }),
      [],
      'management page with the card element',
    );
    await item.locator('[data-testid="save-card"]').click();
    const challenge = page.frameLocator('iframe[title="3D Secure authentication"]');
    await challenge.getByRole('button', { name: 'Complete authentication' }).click();
    await page.waitForURL(/done=card/);
    assert.match((await item.locator('[data-testid="card"]').textContent())!, /ending in 3184/);
    for (const seen of pageRequests)
      assert.doesNotMatch(
        decodeURIComponent(seen).replace(/\s/g, ''),
        /4000002760003184/,
        'the card goes to the processor only',
      );

    // The renewal a month later: the bank holds it for the customer.
    clock.advance(31 * 86_400_000);
    const report = await t.services.billing.runDue();
    assert.equal(report.declined, 1, JSON.stringify(report));
    const held = (await t.services.store.chargeAttempts.latestFor(subscriptionId, 'RENEWAL'))!;
    assert.equal(held.failureCode, 'authentication_required');
    assert.equal((await renewals()).length, 1);

    await page.goto(await manageUrl());
    const notice = item.locator('[data-testid="requires-action"]');
    assert.match((await notice.textContent())!, /Your bank asks you to confirm the payment of \$8\.00 for Acme Cloud/);
    await screenshot(page, `${ARTIFACTS}manage-requires-action-desktop.png`, { fullPage: true });
    const phone = await (
      await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 }, isMobile: true })
    ).newPage();
    await phone.goto(page.url());
    await phone.locator('[data-testid="confirm-payment"]:not([disabled])').waitFor();
    await screenshot(phone, `${ARTIFACTS}manage-requires-action-phone.png`, { fullPage: true });
    assert.deepEqual(await seriousViolations(phone), [], 'management page asking for authentication, phone');
    await phone.context().close();
    // Without JavaScript the buttons that need the processor's script do nothing (the page says why: see test/api/manage-processor.test.ts).
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    await plain.goto(page.url());
    assert.equal(await plain.locator('[data-testid="confirm-payment"]').isDisabled(), true);
    await plain.locator('summary', { hasText: 'Change the card' }).click();
    assert.equal(await plain.locator('[data-testid="save-card"]').isDisabled(), true);
    await noScript.close();

    await notice.locator('[data-testid="confirm-payment"]').click();
    await challenge.getByRole('button', { name: 'Complete authentication' }).click();
    await page.waitForURL(/done=authenticated/);
    assert.match((await page.locator('[role="status"]').textContent())!, /Thank you: the payment is confirmed/);
    assert.equal(await page.locator('[data-testid="requires-action"]').count(), 0);
    await screenshot(page, `${ARTIFACTS}manage-payment-confirmed.png`, { fullPage: true });
    assert.deepEqual(await seriousViolations(page, { exclude: ['iframe'] }), [], 'management page after the payment');

    const booked = await renewals();
    assert.equal(booked.length, 2, 'the first payment and the authenticated renewal');
    assert.equal(booked[1]!.externalId, held.gatewayReference);
    assert.equal(await t.services.billing.bookAuthenticated(held, held.gatewayReference!), 'ALREADY_BOOKED');
    const tx = (await t.services.store.transactions.find(scope(), subscriptionId))!;
    assert.equal(tx.status, 'SUBSCRIPTION_STATUS_ACTIVE');
    assert.equal(tx.billing?.failedAttempts, 0);
    await page.context().close();
  });
});
