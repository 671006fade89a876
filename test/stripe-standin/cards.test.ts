import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';

/** Stripe's test cards, through the real SDK: what each one does at the bank, as Stripe documents it. */
describe('Stripe stand-in: test cards', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  let browserSide: Stripe;
  const year = new Date().getUTCFullYear() + 2;

  before(async () => {
    s = await startStripeStandIn();
    stripe = s.client();
    browserSide = s.client('publishable');
  });
  after(() => s.close());

  const card = (number: string) =>
    browserSide.paymentMethods.create({ type: 'card', card: { number, exp_month: 12, exp_year: year, cvc: '123' } });
  const pay = (paymentMethod: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
    stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      payment_method: paymentMethod,
      allowed_payment_method_types: ['card'],
      confirm: true,
      ...extra,
    });
  const rejection = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (e) {
      return e as Stripe.errors.StripeError & { raw: any };
    }
    assert.fail('expected Stripe to refuse');
  };
  const challenge = (url: string, action: 'complete' | 'fail') =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `action=${action}`,
    }).then((r) => r.json());

  test('4242 succeeds: a charge, and a balance transaction with Stripe’s fee (2.9% + 30)', async () => {
    const pm = await card('4242 4242 4242 4242');
    assert.equal(pm.card?.brand, 'visa');
    assert.equal(pm.card?.last4, '4242');
    assert.equal(JSON.stringify(pm).includes('4242424242424242'), false, 'the full number is never echoed');
    const pi = await pay(pm.id, { metadata: { order: 'o_1' }, expand: ['latest_charge.balance_transaction'] });
    assert.equal(pi.status, 'succeeded');
    assert.equal(pi.amount_received, 2000);
    const charge = pi.latest_charge as Stripe.Charge;
    assert.equal(charge.status, 'succeeded');
    assert.equal(charge.paid, true);
    assert.equal(charge.captured, true);
    assert.deepEqual(charge.metadata, { order: 'o_1' });
    assert.equal(charge.payment_method_details?.card?.last4, '4242');
    const txn = charge.balance_transaction as Stripe.BalanceTransaction;
    assert.equal(txn.fee, 88); // round(2000 × 2.9%) + 30
    assert.equal(txn.net, 1912);
    assert.deepEqual(txn.fee_details, [
      { amount: 88, application: null, currency: 'usd', description: 'Stripe processing fees', type: 'stripe_fee' },
    ]);
    assert.equal(txn.source, charge.id);
    assert.equal(txn.exchange_rate, null);
    const types = s
      .events()
      .filter(
        (e) => (e.data.object as { id: string }).id === pi.id || (e.data.object as { id: string }).id === charge.id,
      )
      .map((e) => e.type);
    assert.deepEqual(types, ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded']);
    const succeeded = s
      .events()
      .find((e) => e.type === 'payment_intent.succeeded' && (e.data.object as Stripe.PaymentIntent).id === pi.id)!;
    assert.deepEqual((succeeded.data.object as Stripe.PaymentIntent).metadata, { order: 'o_1' });
  });

  test('5555 is a Mastercard that succeeds', async () => {
    const pm = await card('5555555555554444');
    assert.equal(pm.card?.brand, 'mastercard');
    assert.equal((await pay(pm.id)).status, 'succeeded');
  });

  for (const [number, code, declineCode] of [
    ['4000000000000002', 'card_declined', 'generic_decline'],
    ['4000000000009995', 'card_declined', 'insufficient_funds'],
    ['4000000000000069', 'expired_card', 'expired_card'],
  ] as const)
    test(`${number} is declined: 402 ${code}/${declineCode}, the intent waits for another payment method`, async () => {
      const pm = await card(number);
      const error = await rejection(pay(pm.id));
      assert.equal(error.type, 'StripeCardError');
      assert.equal(error.statusCode, 402);
      assert.equal(error.code, code);
      assert.equal(error.decline_code, declineCode);
      const pi = error.raw.payment_intent as Stripe.PaymentIntent;
      assert.equal(pi.status, 'requires_payment_method');
      assert.equal(pi.payment_method, null);
      assert.equal(pi.last_payment_error?.code, code);
      assert.equal(pi.last_payment_error?.decline_code, declineCode);
      assert.equal((pi.last_payment_error?.payment_method as Stripe.PaymentMethod).id, pm.id);
      const charge = await stripe.charges.retrieve(pi.latest_charge as string);
      assert.equal(charge.status, 'failed');
      assert.equal(charge.failure_code, code);
      assert.equal(charge.balance_transaction, null);
      const failed = s
        .events()
        .filter(
          (e) => e.type === 'payment_intent.payment_failed' && (e.data.object as Stripe.PaymentIntent).id === pi.id,
        );
      assert.equal(failed.length, 1);
    });

  test('the test PaymentMethod ids (pm_card_…) behave like their cards', async () => {
    assert.equal((await pay('pm_card_visa')).status, 'succeeded');
    assert.equal((await pay('pm_card_mastercard')).status, 'succeeded');
    assert.equal((await rejection(pay('pm_card_visa_chargeDeclined'))).decline_code, 'generic_decline');
    assert.equal(
      (await rejection(pay('pm_card_visa_chargeDeclinedInsufficientFunds'))).decline_code,
      'insufficient_funds',
    );
    assert.equal((await rejection(pay('pm_card_visa_chargeDeclinedExpiredCard'))).code, 'expired_card');
  });

  test('0341 attaches to a customer, then every charge is declined', async () => {
    const customer = await stripe.customers.create({ email: 'fail@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_chargeCustomerFail', { customer: customer.id });
    assert.equal(pm.customer, customer.id);
    const error = await rejection(pay(pm.id, { customer: customer.id, off_session: true }));
    assert.equal(error.code, 'card_declined');
    // A card that declines everything cannot even be saved.
    const saveDeclined = await rejection(
      stripe.paymentMethods.attach('pm_card_visa_chargeDeclined', { customer: customer.id }),
    );
    assert.equal(saveDeclined.code, 'card_declined');
  });

  test('3155 needs 3-D Secure on-session; off-session it needs authentication until it was set up with it', async () => {
    const customer = await stripe.customers.create({ email: '3155@example.com' });
    const pm = await card('4000002500003155');
    const onSession = await pay(pm.id, { customer: customer.id, setup_future_usage: 'off_session' });
    assert.equal(onSession.status, 'requires_action');
    assert.equal(onSession.next_action?.type, 'use_stripe_sdk');
    const url = (onSession.next_action?.use_stripe_sdk as { stripe_js: string }).stripe_js;
    assert.ok(url.startsWith(`${s.url}/3ds/challenge/`));
    assert.equal((await challenge(url, 'complete')).status, 'succeeded');
    const settled = await stripe.paymentIntents.retrieve(onSession.id, { expand: ['latest_charge'] });
    assert.equal(settled.status, 'succeeded');
    assert.equal(
      (settled.latest_charge as Stripe.Charge).payment_method_details?.card?.three_d_secure?.result,
      'authenticated',
    );
    assert.equal(
      (await stripe.paymentMethods.retrieve(pm.id)).customer,
      customer.id,
      'setup_future_usage saved the card',
    );
    // Set up with authentication: later off-session payments need none.
    assert.equal((await pay(pm.id, { customer: customer.id, off_session: true })).status, 'succeeded');

    // Saved without authentication (attached directly): off-session is declined with authentication_required.
    const other = await stripe.customers.create({ email: '3155b@example.com' });
    const unauthenticated = await stripe.paymentMethods.attach('pm_card_authenticationRequiredOnSetup', {
      customer: other.id,
    });
    const error = await rejection(pay(unauthenticated.id, { customer: other.id, off_session: true }));
    assert.equal(error.code, 'authentication_required');
    assert.equal(error.raw.payment_intent.status, 'requires_payment_method');
  });

  test('3155 through a SetupIntent: 3-D Secure at setup, then off-session payments succeed', async () => {
    const customer = await stripe.customers.create({ email: 'setup@example.com' });
    const si = await stripe.setupIntents.create({
      customer: customer.id,
      payment_method: 'pm_card_authenticationRequiredOnSetup',
      allowed_payment_method_types: ['card'],
      confirm: true,
    });
    assert.equal(si.status, 'requires_action');
    await challenge((si.next_action?.use_stripe_sdk as { stripe_js: string }).stripe_js, 'complete');
    const done = await stripe.setupIntents.retrieve(si.id, { expand: ['payment_method'] });
    assert.equal(done.status, 'succeeded');
    const pm = done.payment_method as Stripe.PaymentMethod;
    assert.equal(pm.customer, customer.id);
    assert.equal((await pay(pm.id, { customer: customer.id, off_session: true })).status, 'succeeded');
    assert.ok(
      s.events().some((e) => e.type === 'setup_intent.succeeded' && (e.data.object as Stripe.SetupIntent).id === si.id),
    );
  });

  test('3184 needs authentication on every payment, off-session too', async () => {
    const customer = await stripe.customers.create({ email: '3184@example.com' });
    const si = await stripe.setupIntents.create({
      customer: customer.id,
      payment_method: 'pm_card_authenticationRequired',
      allowed_payment_method_types: ['card'],
      confirm: true,
    });
    assert.equal(si.status, 'requires_action');
    await challenge((si.next_action?.use_stripe_sdk as { stripe_js: string }).stripe_js, 'complete');
    const pm = (await stripe.setupIntents.retrieve(si.id)).payment_method as string;
    const error = await rejection(pay(pm, { customer: customer.id, off_session: true }));
    assert.equal(error.code, 'authentication_required');
    assert.equal(error.decline_code, 'authentication_required');
    const onSession = await pay(pm, { customer: customer.id });
    assert.equal(onSession.status, 'requires_action');
    await challenge((onSession.next_action?.use_stripe_sdk as { stripe_js: string }).stripe_js, 'fail');
    const failed = await stripe.paymentIntents.retrieve(onSession.id);
    assert.equal(failed.status, 'requires_payment_method');
    assert.equal(failed.last_payment_error?.code, 'payment_intent_authentication_failure');
  });

  test('a return_url on a server-side confirmation turns the action into redirect_to_url', async () => {
    const pi = await pay('pm_card_authenticationRequired', {
      allowed_payment_method_types: undefined,
      return_url: 'https://shop.example/return',
    });
    assert.equal(pi.status, 'requires_action');
    assert.equal(pi.next_action?.type, 'redirect_to_url');
    assert.equal(pi.next_action?.redirect_to_url?.return_url, 'https://shop.example/return');
    const result = await challenge(pi.next_action!.redirect_to_url!.url!, 'complete');
    assert.equal(result.status, 'succeeded');
    assert.match(result.redirect, /^https:\/\/shop\.example\/return\?payment_intent=pi_.*&redirect_status=succeeded$/);
  });

  test('0259 succeeds, then the cardholder disputes it at once', async () => {
    const pi = await pay('pm_card_createDispute');
    assert.equal(pi.status, 'succeeded');
    const created = s
      .events()
      .find((e) => e.type === 'charge.dispute.created' && (e.data.object as Stripe.Dispute).payment_intent === pi.id);
    assert.ok(created);
    const dispute = created.data.object as Stripe.Dispute;
    assert.equal(dispute.reason, 'fraudulent');
    assert.equal(dispute.status, 'needs_response');
    assert.equal(dispute.amount, 2000);
    assert.equal((await stripe.charges.retrieve(pi.latest_charge as string)).disputed, true);
    assert.ok(
      s
        .events()
        .some(
          (e) => e.type === 'charge.dispute.funds_withdrawn' && (e.data.object as Stripe.Dispute).id === dispute.id,
        ),
    );
  });

  test('card numbers are checked when the PaymentMethod is created', async () => {
    const luhn = await rejection(card('4242424242424241'));
    assert.equal(luhn.type, 'StripeCardError');
    assert.equal(luhn.code, 'incorrect_number');
    const expired = await rejection(
      browserSide.paymentMethods.create({
        type: 'card',
        card: { number: '4242424242424242', exp_month: 1, exp_year: 2020, cvc: '123' },
      }),
    );
    assert.equal(expired.code, 'invalid_expiry_year');
    const month = await rejection(
      browserSide.paymentMethods.create({
        type: 'card',
        card: { number: '4242424242424242', exp_month: 13, exp_year: year },
      }),
    );
    assert.equal(month.code, 'invalid_expiry_month');
    // Any other valid number succeeds, its brand from its prefix.
    assert.equal((await card('378282246310005')).card?.brand, 'amex');
  });

  test('raw card numbers with the secret key are refused, as for a Stripe account without raw card data access', async () => {
    const error = await rejection(
      stripe.paymentMethods.create({
        type: 'card',
        card: { number: '4242424242424242', exp_month: 12, exp_year: year },
      }),
    );
    assert.equal(error.type, 'StripeInvalidRequestError');
    assert.match(error.message, /Sending credit card numbers directly/);
  });

  test('automatic payment methods need a return_url when confirming server-side, unless redirects are off', async () => {
    const error = await rejection(pay('pm_card_visa', { allowed_payment_method_types: undefined }));
    assert.equal(error.param, 'return_url');
    const ok = await pay('pm_card_visa', {
      allowed_payment_method_types: undefined,
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    });
    assert.equal(ok.status, 'succeeded');
  });

  test('a PaymentMethod used without a customer cannot be used again; an attached one can', async () => {
    const pm = await card('4242424242424242');
    await pay(pm.id);
    assert.match((await rejection(pay(pm.id))).message, /may not be used again/);
    const customer = await stripe.customers.create({});
    const saved = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    await pay(saved.id, { customer: customer.id, off_session: true });
    assert.equal((await pay(saved.id, { customer: customer.id, off_session: true })).status, 'succeeded');
    assert.match((await rejection(pay(saved.id))).message, /attached to a Customer/);
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: saved.id } });
    const detached = await stripe.paymentMethods.detach(saved.id);
    assert.equal(detached.customer, null);
    assert.equal(
      ((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).invoice_settings.default_payment_method,
      null,
    );
    assert.ok(
      s
        .events()
        .some((e) => e.type === 'payment_method.detached' && (e.data.object as Stripe.PaymentMethod).id === saved.id),
    );
  });

  test('cancel: requires_payment_method can be canceled, succeeded cannot', async () => {
    const pi = await stripe.paymentIntents.create({
      amount: 500,
      currency: 'eur',
      allowed_payment_method_types: ['card'],
    });
    const canceled = await stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'abandoned' });
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.cancellation_reason, 'abandoned');
    const paid = await pay('pm_card_visa');
    const error = await rejection(stripe.paymentIntents.cancel(paid.id));
    assert.equal(error.code, 'payment_intent_unexpected_state');
  });

  test('a two-step payment: create, update, confirm; search by metadata; list by customer', async () => {
    const customer = await stripe.customers.create({ email: 'two@example.com' });
    const pi = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'USD',
      customer: customer.id,
      metadata: { checkout: 'c_9', vendor: 'v_1' },
      allowed_payment_method_types: ['card'],
    });
    assert.equal(pi.currency, 'usd');
    assert.equal(pi.status, 'requires_payment_method');
    assert.match(pi.client_secret!, new RegExp(`^${pi.id}_secret_`));
    const updated = await stripe.paymentIntents.update(pi.id, {
      amount: 1500,
      payment_method: 'pm_card_visa',
      metadata: { vendor: '' },
    });
    assert.equal(updated.status, 'requires_confirmation');
    assert.deepEqual(updated.metadata, { checkout: 'c_9' });
    const confirmed = await stripe.paymentIntents.confirm(pi.id, { return_url: 'https://shop.example/back' });
    assert.equal(confirmed.status, 'succeeded');
    assert.equal(confirmed.amount_received, 1500);
    const tooLate = await rejection(stripe.paymentIntents.update(pi.id, { amount: 3000 }));
    assert.equal(tooLate.code, 'payment_intent_unexpected_state');
    const found = await stripe.paymentIntents.search({ query: "metadata['checkout']:'c_9' AND status:'succeeded'" });
    assert.equal(found.object, 'search_result');
    assert.deepEqual(
      found.data.map((p) => p.id),
      [pi.id],
    );
    const listed = await stripe.paymentIntents.list({ customer: customer.id });
    assert.deepEqual(
      listed.data.map((p) => p.id),
      [pi.id],
    );
  });
});
