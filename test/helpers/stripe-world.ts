import Stripe from 'stripe';
import type { Clock } from '../../src/domain/clock.ts';
import type { BillingOptions } from '../../src/domain/billing/billing.ts';
import { stripeGateway } from '../../src/gateways/stripe-gateway.ts';
import { setupStripe } from '../../src/gateways/stripe-setup.ts';
import type { ServiceOverrides } from '../../src/services.ts';
import type { Database } from '../../src/store/database.ts';
import type { StoreKind } from '../../support/databases.ts';
import { startStripeStandIn, type StripeStandIn } from './stripe-standin/index.ts';
import { startTestApp, type TestApp, type TestVendor } from './test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * Production through the Stripe adapter, against the Stripe stand-in on loopback: the real `stripe`
 * SDK, opentill's real HTTP server and store, and Stripe's events delivered to opentill's webhook
 * endpoint, registered the way `opentill stripe setup` registers it. What the customer's browser does
 * with Stripe.js (create the card's PaymentMethod with the publishable key, confirm, pass 3-D Secure)
 * is done here with the publishable key too, so server-level tests run without a browser.
 */
export interface StripeWorld {
  app: TestApp;
  vendor: TestVendor;
  standin: StripeStandIn;
  /** Stripe with the publishable key, as Stripe.js uses it. */
  browser: Stripe;
  /** Stripe with the secret key, to look at what happened there. */
  stripe: Stripe;
  /** Delivers the queued events to opentill and lets the worker act on them. */
  settleEvents(): Promise<void>;
  checkout(productId: string, customer?: Partial<Customer>): Promise<CheckoutRun>;
  /**
   * What the management page's "confirm" button does for a renewal the bank held: its session, then
   * Stripe.js confirms the payment and the bank's challenge is passed. Returns the page's form
   * builder (its token and the transaction) for the POSTs that follow.
   */
  confirmHeldPayment(path: string, transactionId: string): Promise<(fields: Record<string, string>) => RequestInit>;
  close(): Promise<void>;
}

export interface Customer {
  email: string;
  /** A test card's number, or a test PaymentMethod id (`pm_card_visa_applePay`, `pm_link`) the Payment Element would make. */
  card: string;
  /** Another way to pay, as the Payment Element creates it (SEPA Direct Debit, PayPal): used instead of the card. */
  method?: Stripe.PaymentMethodCreateParams;
  /** What the customer does in the 3-D Secure challenge, if the bank asks. */
  authenticate: 'complete' | 'fail';
  /** Where the customer pays from (the checkout's country), if not where the request's address says. */
  country?: string;
}

export interface CheckoutRun {
  /** What the confirmation page answered after the browser's part. */
  status: number;
  html: string;
  transactionId: string | undefined;
  /** The decline Stripe.js showed, if the card was refused in the browser. */
  declined: string | undefined;
  session: { clientSecret: string; mode: 'payment' | 'setup'; confirmUrl: string } | undefined;
  /** Pays again in the same session with another card (after a decline), and opens the confirmation page. */
  retry(card: string): Promise<CheckoutRun>;
}

export async function startStripeWorld(
  kind: StoreKind,
  options: {
    clock?: Clock;
    billing?: BillingOptions;
    payments?: ServiceOverrides['payments'];
    gatewayTimeoutMs?: number;
    now?: () => Date;
    env?: Record<string, string>;
    /** The stand-in's own options (an account settling in another currency). */
    standin?: { balance?: { currency: string; exchangeRate: number } };
    /** Items a list request of the gateway's books asks for (Stripe's 100 unless a test pages in smaller steps). */
    listPageSize?: number;
    /** A database of the test's own (for a CLI run on it too), left to the test to drop. */
    database?: Database;
  } = {},
): Promise<StripeWorld> {
  // Stripe's time is the test's too: objects' ages, and the 24 hours it keeps idempotency keys.
  const standin = await startStripeStandIn({
    webhookDelivery: 'manual',
    ...options.standin,
    ...(options.now ? { now: () => options.now!().getTime() } : {}),
  });
  const keys: { secretKey: string; publishableKey: string; webhookSecret: string | undefined } = {
    secretKey: standin.secretKey,
    publishableKey: standin.publishableKey,
    webhookSecret: undefined,
  };
  const gateway = stripeGateway({
    keys,
    apiUrl: standin.url,
    jsUrl: standin.jsUrl,
    timeoutMs: options.gatewayTimeoutMs ?? 5000,
    now: options.now,
    listPageSize: options.listPageSize,
  });
  const app = await startTestApp(kind, {
    clock: options.clock,
    billing: options.billing,
    payments: options.payments,
    gateways: { production: gateway },
    env: options.env,
    database: options.database,
  });
  const setup = await setupStripe({ keys, apiUrl: standin.url, webhookUrl: `${app.url}/webhooks/stripe` });
  keys.webhookSecret = setup.signingSecret!;
  const vendor = await app.newVendor();
  const browser = standin.client('publishable');

  /** What Stripe.js does with the card typed into the Payment Element: a PaymentMethod, the confirmation, the challenge. */
  async function confirmInBrowser(
    session: NonNullable<CheckoutRun['session']>,
    customer: Customer,
  ): Promise<string | undefined> {
    const [month, year] = [12, 2035];
    try {
      const method = customer.card.startsWith('pm_')
        ? { id: customer.card }
        : await browser.paymentMethods.create(
            customer.method ?? {
              type: 'card',
              card: { number: customer.card, exp_month: month, exp_year: year, cvc: '123' },
            },
          );
      const id = session.clientSecret.split('_secret_')[0]!;
      const params = {
        client_secret: session.clientSecret,
        payment_method: method.id,
        return_url: 'https://shop.example/return',
      } as never;
      const intent =
        session.mode === 'payment'
          ? await browser.paymentIntents.confirm(id, params)
          : await browser.setupIntents.confirm(id, params);
      if (intent.status === 'requires_action') {
        const action = intent.next_action as {
          use_stripe_sdk?: { stripe_js?: string };
          redirect_to_url?: { url?: string };
        } | null;
        const challenge = action?.use_stripe_sdk?.stripe_js ?? action?.redirect_to_url?.url;
        if (!challenge) throw new Error('requires_action without a challenge URL');
        await fetch(challenge, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ action: customer.authenticate }),
        });
        if (customer.authenticate === 'fail') return 'authentication failed';
      }
      return undefined;
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) return err.message;
      throw err;
    }
  }

  async function finish(
    productId: string,
    session: CheckoutRun['session'],
    declined: string | undefined,
    customer: Customer,
  ): Promise<CheckoutRun> {
    const retry = async (card: string) => {
      const again = await confirmInBrowser(session!, { ...customer, card });
      return finish(productId, session, again, customer);
    };
    if (declined || !session) return { status: 402, html: '', transactionId: undefined, declined, session, retry };
    const res = await fetch(`${app.url}/payment/product/${session.confirmUrl}`);
    const html = await res.text();
    return {
      status: res.status,
      html,
      transactionId: /data-testid="transaction-id">([^<]+)</.exec(html)?.[1],
      declined,
      session,
      retry,
    };
  }

  return {
    app,
    vendor,
    standin,
    browser,
    stripe: standin.client('secret'),
    async confirmHeldPayment(path, transactionId) {
      const page = await (await fetch(`${app.url}${path}`)).text();
      const formToken = /name="formToken" value="([^"]+)"/.exec(page)![1]!;
      const form = (fields: Record<string, string>): RequestInit => ({
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ formToken, transactionId, ...fields }),
      });
      const session = (await (await fetch(`${app.url}${path}/authentication/session`, form({}))).json()) as {
        clientSecret: string;
        paymentMethod: string;
      };
      const confirmed = await browser.paymentIntents.confirm(session.clientSecret.split('_secret_')[0]!, {
        client_secret: session.clientSecret,
        payment_method: session.paymentMethod,
        return_url: 'https://shop.example/return',
      } as never);
      if (confirmed.status !== 'requires_action')
        throw new Error(`the held payment is ${confirmed.status}, not requires_action`);
      const action = confirmed.next_action as {
        use_stripe_sdk?: { stripe_js?: string };
        redirect_to_url?: { url?: string };
      };
      await fetch(action.use_stripe_sdk?.stripe_js ?? action.redirect_to_url!.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ action: 'complete' }),
      });
      return form;
    },
    async settleEvents() {
      await standin.deliverAll();
      await app.services.processorEvents.runDue();
    },
    async checkout(productId, given = {}) {
      const customer: Customer = {
        email: 'buyer@example.com',
        card: '4242424242424242',
        authenticate: 'complete',
        ...given,
      };
      const page = await fetch(
        `${app.url}/payment/product/${productId}${customer.country ? `?country=${customer.country}` : ''}`,
      );
      const form = {
        ...hiddenFields(await page.text()),
        email: customer.email,
        ...(customer.country ? { country: customer.country } : {}),
      };
      const res = await fetch(`${app.url}/payment/product/${encodeURIComponent(productId)}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
      const body = (await res.json()) as {
        clientSecret?: string;
        mode?: 'payment' | 'setup';
        confirmUrl?: string;
        redirect?: string;
        message?: string;
      };
      if (body.redirect) {
        const done = await fetch(`${app.url}/payment/product/${body.redirect}`);
        const html = await done.text();
        return {
          status: done.status,
          html,
          transactionId: /data-testid="transaction-id">([^<]+)</.exec(html)?.[1],
          declined: undefined,
          session: undefined,
          retry: () => {
            throw new Error('no session');
          },
        };
      }
      if (!res.ok || !body.clientSecret) throw new Error(`session refused: ${res.status} ${JSON.stringify(body)}`);
      const session = { clientSecret: body.clientSecret, mode: body.mode!, confirmUrl: body.confirmUrl! };
      return finish(productId, session, await confirmInBrowser(session, customer), customer);
    },
    async close() {
      await app.close();
      await standin.close();
    },
  };
}
