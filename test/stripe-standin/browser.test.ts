import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import type Stripe from 'stripe';
import { ARTIFACTS, screenshot } from '../../support/chromium.ts';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The stand-in Stripe.js in Chromium: a shop page on its own origin mounts the Payment Element, collects
 * the card before the PaymentIntent exists (elements.submit, then the server creates the intent, then
 * confirmPayment), pays with 4242, then with 3155 through the 3-D Secure challenge. The card number
 * never reaches the shop page: only the Payment Element's frame sees it.
 */
describe('Stripe stand-in: Stripe.js and the Payment Element in Chromium', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  let shop: Server;
  let shopUrl: string;
  let browser: Browser;
  let customer: Stripe.Customer;

  before(async () => {
    s = await startStripeStandIn();
    stripe = s.client();
    const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title>
      <script src="${s.jsUrl}"></script>
      <style>body{font-family:system-ui,sans-serif;max-width:480px;margin:40px auto;color:#1a1f36} button{margin-top:12px;padding:10px 16px;font:inherit}</style></head>
      <body><h1>Acme Pro — $20.00</h1>
      <form id="checkout"><div id="payment-element"></div><button id="pay" type="submit">Pay $20.00</button></form>
      <pre id="result"></pre>
      <script>
        const stripe = Stripe(${JSON.stringify(s.publishableKey)});
        const elements = stripe.elements({ mode: 'payment', amount: 2000, currency: 'usd' });
        const paymentElement = elements.create('payment');
        paymentElement.on('ready', () => { document.body.dataset.ready = 'yes'; });
        paymentElement.on('change', (event) => { document.body.dataset.complete = String(event.complete); });
        paymentElement.mount('#payment-element');
        const result = document.getElementById('result');
        document.getElementById('checkout').addEventListener('submit', async (event) => {
          event.preventDefault();
          result.textContent = '';
          const submitted = await elements.submit();
          if (submitted.error) { result.textContent = JSON.stringify({ submitError: submitted.error.code }); return; }
          const { clientSecret } = await fetch('/intent', { method: 'POST' }).then((r) => r.json());
          const outcome = await stripe.confirmPayment({ elements, clientSecret, confirmParams: { return_url: location.href }, redirect: 'if_required' });
          result.textContent = JSON.stringify(outcome.error
            ? { error: outcome.error.code, type: outcome.error.type, declineCode: outcome.error.decline_code, intent: outcome.error.payment_intent && outcome.error.payment_intent.id }
            : { status: outcome.paymentIntent.status, intent: outcome.paymentIntent.id });
        });
      </script></body></html>`;
    // Saving a card: Elements created with a SetupIntent's client secret; and a payment confirmed on the server that needs the customer.
    customer = await stripe.customers.create({ email: 'saver@example.com' });
    const setupIntent = await stripe.setupIntents.create({
      customer: customer.id,
      allowed_payment_method_types: ['card'],
    });
    const setupPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Save a card</title><script src="${s.jsUrl}"></script></head>
      <body><h1>Save your card</h1><div id="payment-element"></div><button id="save" type="button">Save</button><pre id="result"></pre>
      <script>
        const stripe = Stripe(${JSON.stringify(s.publishableKey)});
        const elements = stripe.elements({ clientSecret: ${JSON.stringify(setupIntent.client_secret)} });
        const paymentElement = elements.create('payment');
        paymentElement.on('ready', () => { document.body.dataset.ready = 'yes'; });
        paymentElement.mount('#payment-element');
        const show = (outcome) => { document.getElementById('result').textContent = JSON.stringify(outcome.error
          ? { error: outcome.error.code }
          : { status: (outcome.setupIntent || outcome.paymentIntent).status, id: (outcome.setupIntent || outcome.paymentIntent).id }); };
        document.getElementById('save').addEventListener('click', async () => {
          show(await stripe.confirmSetup({ elements, confirmParams: { return_url: location.href }, redirect: 'if_required' }));
        });
        window.finishPayment = async (clientSecret) => show(await stripe.handleNextAction({ clientSecret }));
        window.confirmWithoutSubmit = async () => {
          const deferred = stripe.elements({ mode: 'payment', amount: 1000, currency: 'usd' });
          deferred.create('payment').mount(document.createElement('div'));
          try { await stripe.confirmPayment({ elements: deferred, clientSecret: 'pi_x_secret_y', redirect: 'if_required' }); return 'resolved'; }
          catch (e) { return e.name + ': ' + e.message; }
        };
      </script></body></html>`;
    shop = createServer((req, res) => {
      if (req.url === '/setup') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(setupPage);
        return;
      }
      if (req.method === 'POST' && req.url === '/intent') {
        stripe.paymentIntents.create({ amount: 2000, currency: 'usd', metadata: { shop: 'acme' } }).then(
          (pi) =>
            res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ clientSecret: pi.client_secret })),
          (e: Error) => res.writeHead(500).end(e.message),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    await new Promise<void>((done) => shop.listen(0, '127.0.0.1', done));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    shop?.close();
    await s?.close();
  });

  const result = async (page: Page) => {
    await page.waitForFunction(() => document.getElementById('result')!.textContent !== '', undefined, {
      timeout: 15_000,
    });
    return JSON.parse((await page.textContent('#result'))!) as Record<string, string>;
  };

  test('pays with 4242, then with 3155 through 3-D Secure; the card number stays in the Payment Element', async () => {
    const page = await browser.newPage({ locale: 'en-US' });
    const parentRequests: Request[] = [];
    const frameRequests: Request[] = [];
    page.on('request', (request) =>
      (request.frame() === page.mainFrame() ? parentRequests : frameRequests).push(request),
    );
    await page.goto(shopUrl);
    await page.waitForSelector('body[data-ready="yes"]');
    const card = page.frameLocator('iframe[title="Secure payment input frame"]');

    // Stripe.js's validation, through elements.submit().
    await page.click('#pay');
    assert.deepEqual(await result(page), { submitError: 'incomplete_number' });

    await card.getByLabel('Card number').fill('4242 4242 4242 4242');
    await card.getByLabel('Expiration date').fill('1234');
    assert.equal(await card.getByLabel('Expiration date').inputValue(), '12 / 34');
    await card.getByLabel('Security code').fill('123');
    await page.waitForSelector('body[data-complete="true"]');
    await screenshot(page, `${ARTIFACTS}stripe-standin-payment-element.png`, { fullPage: true });
    await page.click('#pay');
    const paid = await result(page);
    assert.equal(paid.status, 'succeeded');
    const first = await stripe.paymentIntents.retrieve(paid.intent!, { expand: ['latest_charge'] });
    assert.equal(first.status, 'succeeded');
    assert.equal((first.latest_charge as Stripe.Charge).payment_method_details?.card?.last4, '4242');
    assert.deepEqual(first.metadata, { shop: 'acme' });

    // 3155 asks for 3-D Secure: the challenge opens over the page; the customer completes it.
    await card.getByLabel('Card number').fill('4000 0025 0000 3155');
    await page.click('#pay');
    const challenge = page.frameLocator('iframe[title="3D Secure authentication"]');
    await challenge.getByRole('button', { name: 'Complete authentication' }).waitFor();
    await screenshot(page, `${ARTIFACTS}stripe-standin-3ds.png`, { fullPage: true });
    await challenge.getByRole('button', { name: 'Complete authentication' }).click();
    const authenticated = await result(page);
    assert.equal(authenticated.status, 'succeeded');
    const second = await stripe.paymentIntents.retrieve(authenticated.intent!, { expand: ['latest_charge'] });
    assert.equal(
      (second.latest_charge as Stripe.Charge).payment_method_details?.card?.three_d_secure?.result,
      'authenticated',
    );
    assert.equal(await page.locator('iframe[title="3D Secure authentication"]').count(), 0, 'the challenge closes');

    // Failing the challenge, and a decline, come back as errors.
    await card.getByLabel('Card number').fill('4000 0027 6000 3184');
    await page.click('#pay');
    await challenge.getByRole('button', { name: 'Fail authentication' }).click();
    assert.equal((await result(page)).error, 'payment_intent_authentication_failure');
    await card.getByLabel('Card number').fill('4000 0000 0000 9995');
    await page.click('#pay');
    const declined = await result(page);
    assert.deepEqual(
      [declined.type, declined.error, declined.declineCode],
      ['card_error', 'card_declined', 'insufficient_funds'],
    );

    // The card number went from the Payment Element's frame to the stand-in, never through the shop page.
    const digits = ['4242424242424242', '4242 4242 4242 4242', '4000002500003155', '4000 0025 0000 3155'];
    for (const request of parentRequests) {
      const seen = `${request.url()} ${request.postData() ?? ''}`;
      for (const number of digits)
        assert.equal(
          seen.includes(number) || decodeURIComponent(seen).includes(number),
          false,
          `${request.url()} carries the card number`,
        );
    }
    const created = frameRequests.filter((r) => r.url() === `${s.url}/v1/payment_methods`);
    assert.equal(created.length, 4);
    assert.ok(created.every((r) => r.frame().url().startsWith(`${s.url}/elements/payment.html`)));
    assert.ok(
      parentRequests.some((r) => r.url().includes('/confirm')),
      'the shop page confirms the intent with the PaymentMethod id',
    );
    assert.ok(s.requests.filter((r) => r.path === '/v1/payment_methods').every((r) => r.headers.origin === s.url));
    await page.close();
  });
  test('confirmSetup saves a card through 3-D Secure; handleNextAction finishes a payment confirmed on the server', async () => {
    const page = await browser.newPage({ locale: 'en-US' });
    await page.goto(`${shopUrl}setup`);
    await page.waitForSelector('body[data-ready="yes"]');
    assert.match(
      await page.evaluate(() => (window as any).confirmWithoutSubmit()),
      /^IntegrationError: elements\.submit\(\) must be called before stripe\.confirmPayment\(\)/,
    );

    const card = page.frameLocator('iframe[title="Secure payment input frame"]');
    await card.getByLabel('Card number').fill('4000002500003155');
    await card.getByLabel('Expiration date').fill('12 / 34');
    await card.getByLabel('Security code').fill('424');
    await page.click('#save');
    const challenge = page.frameLocator('iframe[title="3D Secure authentication"]');
    await challenge.getByRole('button', { name: 'Complete authentication' }).click();
    const saved = await result(page);
    assert.equal(saved.status, 'succeeded');
    const setupIntent = await stripe.setupIntents.retrieve(saved.id!, { expand: ['payment_method'] });
    const pm = setupIntent.payment_method as Stripe.PaymentMethod;
    assert.equal(pm.customer, customer.id);
    assert.equal(pm.card?.last4, '3155');

    // Saved with authentication: an off-session payment needs none. A 3184 card does; the page finishes it.
    const offSession = await stripe.paymentIntents.create({
      amount: 900,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      off_session: true,
      confirm: true,
      allowed_payment_method_types: ['card'],
    });
    assert.equal(offSession.status, 'succeeded');
    const needsCustomer = await stripe.paymentIntents.create({
      amount: 900,
      currency: 'usd',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
      allowed_payment_method_types: ['card'],
    });
    assert.equal(needsCustomer.status, 'requires_action');
    await page.evaluate(() => (document.getElementById('result')!.textContent = ''));
    await page.evaluate((clientSecret) => {
      void (window as any).finishPayment(clientSecret);
    }, needsCustomer.client_secret);
    await challenge.getByRole('button', { name: 'Complete authentication' }).click();
    assert.deepEqual(await result(page), { status: 'succeeded', id: needsCustomer.id });
    await page.close();
  });
});
