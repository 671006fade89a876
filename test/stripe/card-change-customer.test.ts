import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { stripeGateway } from '../../src/gateways/stripe-gateway.ts';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';

/**
 * A card change on the management page, at the Stripe adapter through the real SDK: the setup
 * session of the new card belongs to the customer Stripe keeps the current card with, so the
 * customer's cards stay under one Stripe customer instead of a new one per change.
 */
describe('Stripe: a changed card stays with its customer', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  let gateway: ReturnType<typeof stripeGateway>;

  before(async () => {
    s = await startStripeStandIn();
    stripe = s.client();
    gateway = stripeGateway({
      keys: { secretKey: s.secretKey, publishableKey: s.publishableKey, webhookSecret: undefined },
      apiUrl: s.url,
      jsUrl: s.jsUrl,
      timeoutMs: 5000,
    });
  });
  after(() => s?.close());

  const customersMade = () => s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers').length;
  const setupSession = (attemptId: string, replacesCard?: string) =>
    gateway.startSession({
      attemptId,
      amountMinor: 0,
      currency: 'EUR',
      saveForLater: true,
      scope: { vendorId: 'v_card_change', environment: 'production' },
      customer: { email: 'nia@example.com', name: null, reference: null },
      replacesCard,
      description: 'New card for Sync',
    });

  test("the new card's setup session is the current card's customer's; no customer is made", async () => {
    const customer = await stripe.customers.create({ email: 'nia@example.com' });
    const before = customersMade();
    const started = await setupSession('card:change-1', `${customer.id}/pm_current`);
    assert.equal(started.status, 'OPEN');
    assert.equal(started.status === 'OPEN' && started.mode, 'setup');
    const setup = await stripe.setupIntents.retrieve(started.status === 'OPEN' ? started.reference : '');
    assert.equal(setup.customer, customer.id);
    assert.equal(customersMade(), before, 'no new Stripe customer');
  });

  test('a card stored with another processor (no Stripe customer in its token) gets a customer made for it', async () => {
    const before = customersMade();
    const started = await setupSession('card:change-2', 'sbx_success_0123456789abcdef');
    assert.equal(started.status, 'OPEN');
    assert.equal(customersMade(), before + 1);
  });
});
