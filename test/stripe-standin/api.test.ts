import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { rejection } from './rejection.ts';

/** Requests are checked against the parameters Stripe documents; keys, versions and URLs as Stripe checks them. */
describe('Stripe stand-in: parameters, keys, encoding', () => {
  let s: StripeStandIn;
  let stripe: Stripe;

  before(async () => {
    s = await startStripeStandIn();
    stripe = s.client();
  });
  after(() => s.close());

  test('an unknown parameter is refused with parameter_unknown, top-level or nested', async () => {
    const top = await rejection(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: 'usd',
        colour: 'blue',
      } as Stripe.PaymentIntentCreateParams),
    );
    assert.equal(top.type, 'StripeInvalidRequestError');
    assert.equal(top.statusCode, 400);
    assert.equal(top.code, 'parameter_unknown');
    assert.equal(top.param, 'colour');
    assert.equal(top.message, 'Received unknown parameter: colour');
    const nested = await rejection(
      s.client('publishable').paymentMethods.create({
        type: 'card',
        card: { number: '4242424242424242', exp_month: 1, exp_year: new Date().getUTCFullYear() + 3, pin: '1' },
      } as any),
    );
    assert.equal(nested.code, 'parameter_unknown');
    assert.equal(nested.param, 'card[pin]');
  });

  test('a parameter Stripe documents but the stand-in does not model is refused, saying so', async () => {
    const error = await rejection(
      stripe.paymentIntents.create({ amount: 1000, currency: 'usd', statement_descriptor: 'X' }),
    );
    assert.equal(error.param, 'statement_descriptor');
    assert.match(error.message, /stand-in does not implement/);
  });

  test('missing, mistyped, empty and out-of-range parameters', async () => {
    const missing = await rejection(
      stripe.paymentIntents.create({ currency: 'usd' } as Stripe.PaymentIntentCreateParams),
    );
    assert.equal(missing.code, 'parameter_missing');
    assert.equal(missing.param, 'amount');
    assert.equal(missing.message, 'Missing required param: amount.');
    const integer = await rejection(
      stripe.paymentIntents.create({ amount: '12.50' as unknown as number, currency: 'usd' }),
    );
    assert.equal(integer.code, 'parameter_invalid_integer');
    assert.equal(integer.message, 'Invalid integer: 12.50');
    const zero = await rejection(stripe.paymentIntents.create({ amount: 0, currency: 'usd' }));
    assert.equal(zero.code, 'parameter_invalid_integer');
    const small = await rejection(stripe.paymentIntents.create({ amount: 20, currency: 'usd' }));
    assert.equal(small.code, 'amount_too_small');
    const empty = await rejection(stripe.paymentIntents.create({ amount: 1000, currency: 'usd', description: '' }));
    assert.equal(empty.code, 'parameter_invalid_empty');
    const enumValue = await rejection(
      stripe.paymentIntents.create({ amount: 1000, currency: 'usd', setup_future_usage: 'sometimes' as 'off_session' }),
    );
    assert.equal(enumValue.param, 'setup_future_usage');
    const bool = await rejection(
      stripe.paymentIntents.create({ amount: 1000, currency: 'usd', confirm: 'yes' as unknown as boolean }),
    );
    assert.equal(bool.message, 'Invalid boolean: yes');
    const currency = await rejection(stripe.paymentIntents.create({ amount: 1000, currency: 'usx' }));
    assert.equal(currency.param, 'currency');
    const expand = await rejection(stripe.paymentIntents.create({ amount: 1000, currency: 'usd', expand: ['review'] }));
    assert.equal(expand.message, 'This property cannot be expanded (review).');
    const other = await rejection(
      stripe.paymentIntents.create({ amount: 1000, currency: 'usd', allowed_payment_method_types: ['card', 'ideal'] }),
    );
    assert.equal(other.param, 'allowed_payment_method_types[1]');
  });

  test('API 2026-10-28 has no payment_method_types parameter on intents: it is refused like any unknown one', async () => {
    const error = await rejection(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: 'usd',
        payment_method_types: ['card'],
      } as Stripe.PaymentIntentCreateParams),
    );
    assert.equal(error.code, 'parameter_unknown');
    assert.equal(error.param, 'payment_method_types');
    const pi = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      allowed_payment_method_types: ['card'],
    });
    assert.deepEqual(pi.allowed_payment_method_types, ['card']);
    assert.deepEqual(pi.payment_method_types, ['card']);
    assert.equal(pi.automatic_payment_methods, null);
  });

  test('a missing object is resource_missing; an unknown URL is refused', async () => {
    const missing = await rejection(stripe.paymentIntents.retrieve('pi_nope'));
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.code, 'resource_missing');
    assert.equal(missing.message, "No such payment_intent: 'pi_nope'");
    const url = await rejection(stripe.rawRequest('POST', '/v1/invoices', {}));
    assert.equal(url.statusCode, 404);
    assert.match(url.message, /Unrecognized request URL \(POST: \/v1\/invoices\)/);
  });

  test('keys: a wrong key is 401; the publishable key only where Stripe.js uses it', async () => {
    const wrong = new Stripe('sk_test_wrong0000000000000000', {
      host: s.host,
      port: s.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    const error = await rejection(wrong.customers.create({}));
    assert.equal(error.type, 'StripeAuthenticationError');
    assert.equal(error.statusCode, 401);
    const browser = s.client('publishable');
    const forbidden = await rejection(browser.customers.create({}));
    assert.equal(forbidden.statusCode, 401);
    assert.match(forbidden.message, /cannot be made with a publishable API key/);

    const pi = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      metadata: { secret: 'yes' },
      allowed_payment_method_types: ['card'],
    });
    const noSecret = await rejection(browser.paymentIntents.retrieve(pi.id));
    assert.equal(noSecret.param, 'client_secret');
    const badSecret = await rejection(
      browser.paymentIntents.retrieve(pi.id, { client_secret: `${pi.id}_secret_nope` }),
    );
    assert.equal(badSecret.param, 'client_secret');
    const seen = await browser.paymentIntents.retrieve(pi.id, { client_secret: pi.client_secret! });
    assert.equal(seen.status, 'requires_payment_method');
    assert.equal(seen.amount, 1000);
    assert.equal('metadata' in seen, false, 'the publishable key sees only the documented subset');
    assert.equal('customer' in seen, false);
  });

  test('bodies are form-encoded with brackets, GET parameters go in the query; the log never keeps a card number', async () => {
    const customer = await stripe.customers.create({ email: 'x@example.com', metadata: { team: 'a b' } });
    await stripe.customers.retrieve(customer.id, { expand: ['invoice_settings.default_payment_method'] });
    await s.client('publishable').paymentMethods.create({
      type: 'card',
      card: { number: '4000 0025 0000 3155', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '987' },
    });
    const posted = s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers').at(-1)!;
    assert.equal(posted.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.match(posted.headers.authorization!, /^Bearer sk_test_standin_/);
    assert.match(posted.body, /metadata\[team\]=a%20b/);
    const got = s.requests.find((r) => r.method === 'GET' && r.path === `/v1/customers/${customer.id}`)!;
    assert.equal(decodeURIComponent(got.query), 'expand[0]=invoice_settings.default_payment_method');
    const card = s.requests.filter((r) => r.path === '/v1/payment_methods').at(-1)!;
    assert.match(card.headers.authorization!, /^Bearer pk_test_standin_/);
    assert.equal(card.body.includes('3155') && !card.body.includes('40000025'), true, card.body);
    assert.equal(card.body.includes('987'), false);
  });

  test('answers carry Request-Id and Stripe-Version; another API version is refused', async () => {
    const account = await stripe.accounts.retrieveCurrent();
    assert.equal(account.object, 'account');
    assert.equal(account.default_currency, 'usd');
    assert.equal(account.charges_enabled, true);
    assert.match(account.lastResponse.requestId, /^req_/);
    assert.equal(account.lastResponse.headers['stripe-version'], '2026-10-28.endive');
    const old = new Stripe(s.secretKey, {
      host: s.host,
      port: s.port,
      protocol: 'http',
      maxNetworkRetries: 0,
      apiVersion: '2024-06-20' as Stripe.LatestApiVersion,
    });
    assert.match((await rejection(old.customers.create({}))).message, /answers in API version 2026-10-28\.endive only/);
  });

  test('customers: update, default payment method must be attached, customer.updated with previous attributes', async () => {
    const customer = await stripe.customers.create({ email: 'old@example.com', name: 'Old' });
    const refused = await rejection(
      stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: 'pm_card_visa' } }),
    );
    assert.equal(refused.param, 'invoice_settings[default_payment_method]');
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const updated = await stripe.customers.update(customer.id, {
      email: 'new@example.com',
      invoice_settings: { default_payment_method: pm.id },
    });
    assert.equal(updated.email, 'new@example.com');
    assert.equal(updated.invoice_settings.default_payment_method, pm.id);
    const event = s
      .events()
      .find((e) => e.type === 'customer.updated' && (e.data.object as Stripe.Customer).id === customer.id)!;
    assert.equal((event.data.previous_attributes as Partial<Stripe.Customer>).email, 'old@example.com');
    const attached = s
      .events()
      .find((e) => e.type === 'payment_method.attached' && (e.data.object as Stripe.PaymentMethod).id === pm.id)!;
    assert.match(attached.request!.id!, /^req_/);
    assert.match(attached.request!.idempotency_key!, /^stripe-node-retry-/);
  });
});

/** Stripe's idempotency: same key and parameters answer the first answer again; anything else is an idempotency_error. */
describe('Stripe stand-in: idempotency', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  let clock = Date.parse('2026-11-02T10:00:00Z');

  before(async () => {
    s = await startStripeStandIn({ now: () => clock });
    stripe = s.client();
  });
  after(() => s.close());

  const params: Stripe.PaymentIntentCreateParams = {
    amount: 4200,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    allowed_payment_method_types: ['card'],
    confirm: true,
  };

  test('the same key and parameters replay the first answer and do nothing else', async () => {
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'order-1' });
    const again = await stripe.paymentIntents.create(params, { idempotencyKey: 'order-1' });
    assert.equal(again.id, first.id);
    assert.equal(again.lastResponse.headers['idempotent-replayed'], 'true');
    assert.equal(first.lastResponse.headers['idempotent-replayed'], undefined);
    assert.equal(
      s
        .events()
        .filter((e) => e.type === 'payment_intent.succeeded' && (e.data.object as Stripe.PaymentIntent).id === first.id)
        .length,
      1,
    );
    const charges = s
      .events()
      .filter((e) => e.type === 'charge.succeeded' && (e.data.object as Stripe.Charge).payment_intent === first.id);
    assert.equal(charges.length, 1, 'one charge');
  });

  test('a decline is replayed too (402 again, same intent, no second attempt)', async () => {
    const declined = { ...params, payment_method: 'pm_card_visa_chargeDeclined' };
    const one = await rejection(stripe.paymentIntents.create(declined, { idempotencyKey: 'order-2' }));
    const two = await rejection(stripe.paymentIntents.create(declined, { idempotencyKey: 'order-2' }));
    assert.equal(two.statusCode, 402);
    assert.equal(two.raw.payment_intent.id, one.raw.payment_intent.id);
    assert.equal(two.headers?.['idempotent-replayed'], 'true');
  });

  test('the same key with other parameters or another path is an idempotency_error', async () => {
    await stripe.paymentIntents.create(params, { idempotencyKey: 'order-3' });
    const other = await rejection(
      stripe.paymentIntents.create({ ...params, amount: 4300 }, { idempotencyKey: 'order-3' }),
    );
    assert.equal(other.type, 'StripeIdempotencyError');
    assert.equal(other.statusCode, 400);
    assert.equal(
      other.message,
      "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'order-3' if you meant to execute a different request.",
    );
    const path = await rejection(stripe.customers.create({}, { idempotencyKey: 'order-3' }));
    assert.equal(path.type, 'StripeIdempotencyError');
  });

  test('a request that failed validation is not kept: the key can be used again', async () => {
    const invalid = await rejection(
      stripe.paymentIntents.create({ ...params, bogus: 1 } as Stripe.PaymentIntentCreateParams, {
        idempotencyKey: 'order-4',
      }),
    );
    assert.equal(invalid.code, 'parameter_unknown');
    const ok = await stripe.paymentIntents.create(params, { idempotencyKey: 'order-4' });
    assert.equal(ok.status, 'succeeded');
    assert.equal(ok.lastResponse.headers['idempotent-replayed'], undefined);
  });

  test('a key still executing is a 409; keys are forgotten after 24 hours', async () => {
    s.faults.add({ method: 'POST', path: /^\/v1\/customers$/, mode: 'hang', times: 1 });
    const stuck = new AbortController();
    const hanging = fetch(`${s.url}/v1/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.secretKey}`,
        'idempotency-key': 'cust-1',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'email=a%40example.com',
      signal: stuck.signal,
    }).catch(() => 'aborted');
    while (!s.requests.some((r) => r.headers['idempotency-key'] === 'cust-1'))
      await new Promise((r) => setTimeout(r, 5));
    const busy = await rejection(stripe.customers.create({ email: 'a@example.com' }, { idempotencyKey: 'cust-1' }));
    assert.equal(busy.statusCode, 409);
    assert.equal(busy.raw.type, 'idempotency_error');
    stuck.abort();
    assert.equal(await hanging, 'aborted');

    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'order-5' });
    clock += 23 * 3600 * 1000;
    assert.equal((await stripe.paymentIntents.create(params, { idempotencyKey: 'order-5' })).id, first.id);
    clock += 2 * 3600 * 1000;
    const later = await stripe.paymentIntents.create(params, { idempotencyKey: 'order-5' });
    assert.notEqual(later.id, first.id, 'after 24 hours the key is new again');
  });
});
