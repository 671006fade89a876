import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { buildRoutes } from './api.ts';
import { revokeMandate } from './methods.ts';
import { Payments } from './payments.ts';
import { Payouts } from './payouts.ts';
import { StandInServer, type Fault, type RecordedRequest } from './server.ts';
import { NO_REQUEST, Store, randomToken } from './store.ts';
import { Webhooks, type Delivery } from './webhooks.ts';

/**
 * A stand-in for Stripe's API and Stripe.js, on loopback, for tests. The real `stripe` SDK is pointed at
 * it (`new Stripe(secretKey, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 })`);
 * browsers load `jsUrl`. Requests are checked against the parameters Stripe documents, objects look like
 * API 2026-10-28 objects, test cards behave as Stripe's documentation says, events are delivered to
 * webhook endpoints registered through the API, signed as Stripe signs them. See README.md beside this file.
 */
export interface StripeStandInOptions {
  webhookDelivery?: 'auto' | 'manual';
  /** The clock objects are stamped with and idempotency keys expire by (ms since the epoch). Webhook signatures always use the real time. */
  now?: () => number;
  /** Stripe refuses raw card numbers sent with a secret key unless the account is enabled for it; so does the stand-in, unless this is true. */
  rawCardDataWithSecretKey?: boolean;
  /** The account's balance currency (lower case, as Stripe writes it) and the rate from a payment's currency into it; unset: each payment settles in its own. */
  balance?: { currency: string; exchangeRate: number };
}

export interface StripeStandIn {
  url: string;
  host: string;
  port: number;
  jsUrl: string;
  secretKey: string;
  publishableKey: string;
  requests: RecordedRequest[];
  events(): Stripe.Event[];
  deliveries: Delivery[];
  deliverAll(): Promise<void>;
  deliver(eventId: string, opts?: { times?: number }): Promise<number>;
  /** Resolves once every webhook delivery started so far has been tried (auto mode delivers in the background). */
  webhooksSettled(): Promise<void>;
  refundFromDashboard(paymentIntentId: string, amount?: number): Promise<Stripe.Refund>;
  /** A refund that does not reach the customer after all: it fails, its money back in the balance. */
  failRefund(refundId: string): Promise<Stripe.Refund>;
  openDispute(paymentIntentId: string): Promise<Stripe.Dispute>;
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): Promise<Stripe.Dispute>;
  /** The customer revokes, at their bank or wallet, the mandate of a PaymentMethod kept for later (SEPA, PayPal): `mandate.updated`. */
  revokeMandate(paymentMethodId: string): Promise<Stripe.Mandate>;
  /**
   * Stripe's payout schedule runs: the available balance of each currency (every balance transaction not
   * paid out yet) is paid out to the bank, with its `payout` balance transaction. Returns the payouts made.
   */
  payOut(): Promise<Stripe.Payout[]>;
  faults: { add(f: Fault): void; clear(): void };
  /** An SDK client for this stand-in, with the secret key (or the publishable one, as Stripe.js would use it). */
  client(key?: 'secret' | 'publishable'): Stripe;
  close(): Promise<void>;
}

export type { Fault, RecordedRequest, Delivery };

export async function startStripeStandIn(options: StripeStandInOptions = {}): Promise<StripeStandIn> {
  const secretKey = `sk_test_standin_${randomToken(24)}`;
  const publishableKey = `pk_test_standin_${randomToken(24)}`;
  let url = '';
  const store = new Store(options.now ?? Date.now);
  const payments = new Payments(store, () => url);
  payments.balance = options.balance;
  const payouts = new Payouts(store, payments);
  const signer = new Stripe(secretKey);
  const webhooks = new Webhooks(
    store,
    (payload, secret) => signer.webhooks.generateTestHeaderString({ payload, secret }),
    options.webhookDelivery ?? 'auto',
  );
  store.onEvent = (event) => webhooks.enqueue(event);
  const requests: RecordedRequest[] = [];
  const routes = buildRoutes(store, payments, { rawCardDataWithSecretKey: options.rawCardDataWithSecretKey ?? false });
  const standIn = new StandInServer({
    store,
    payments,
    routes,
    webhooks,
    secretKey,
    publishableKey,
    requests,
    baseUrl: () => url,
  });

  const server: Server = createServer((req, res) => {
    standIn.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { type: 'api_error', message: `The Stripe stand-in failed: ${String(error)}` } }),
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;

  const dashboard = async <T>(action: () => T): Promise<T> => {
    const result = structuredClone(action());
    webhooks.kick();
    return result;
  };

  return {
    url,
    host: '127.0.0.1',
    port,
    jsUrl: `${url}/v3/`,
    secretKey,
    publishableKey,
    requests,
    events: () =>
      store
        .all('events')
        .reverse()
        .map((e) => structuredClone(e)) as Stripe.Event[],
    deliveries: webhooks.deliveries,
    deliverAll: () => webhooks.deliverAll(),
    deliver: (eventId, opts) => webhooks.deliver(eventId, opts?.times ?? 1),
    webhooksSettled: () => webhooks.settled(),
    refundFromDashboard: (paymentIntentId, amount) =>
      dashboard(() => payments.refund({ payment_intent: paymentIntentId, amount }, NO_REQUEST) as Stripe.Refund),
    failRefund: (refundId) => dashboard(() => payments.failRefund(store.get('refunds', refundId)) as Stripe.Refund),
    openDispute: (paymentIntentId) =>
      dashboard(() => {
        const pi = store.get('payment_intents', paymentIntentId);
        if (pi.status !== 'succeeded')
          throw new Error(`PaymentIntent ${pi.id} has not succeeded (${pi.status}): nothing to dispute`);
        return payments.openDispute(store.get('charges', pi.latest_charge)) as Stripe.Dispute;
      }),
    closeDispute: (disputeId, outcome) =>
      dashboard(() => payments.closeDispute(store.get('disputes', disputeId), outcome) as Stripe.Dispute),
    revokeMandate: (paymentMethodId) => dashboard(() => revokeMandate(store, paymentMethodId) as Stripe.Mandate),
    payOut: () => dashboard(() => payouts.payOut() as Stripe.Payout[]),
    faults: standIn.faultControl,
    client: (key = 'secret') =>
      new Stripe(key === 'secret' ? secretKey : publishableKey, {
        host: '127.0.0.1',
        port,
        protocol: 'http',
        maxNetworkRetries: 0,
      }),
    close: async () => {
      webhooks.close();
      for (const res of standIn.hanging) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
