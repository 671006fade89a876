import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';

/** Faults a test can inject: an answer that never comes, an answer lost after the money moved, a 500. */
describe('Stripe stand-in: faults', () => {
  let s: StripeStandIn;
  let stripe: Stripe;

  before(async () => {
    s = await startStripeStandIn();
    stripe = s.client();
  });
  after(() => s.close());
  afterEach(() => s.faults.clear());

  const params = (order: string): Stripe.PaymentIntentCreateParams => ({
    amount: 3100,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    allowed_payment_method_types: ['card'],
    confirm: true,
    metadata: { order },
  });
  const byOrder = async (order: string) =>
    (await stripe.paymentIntents.search({ query: `metadata['order']:'${order}'` })).data;

  test('error-500 answers api_error without doing anything; it is not kept for the idempotency key', async () => {
    s.faults.add({ method: 'POST', path: /^\/v1\/payment_intents$/, mode: 'error-500', times: 1 });
    const error = await stripe.paymentIntents
      .create(params('o_500'), { idempotencyKey: 'k-500' })
      .catch((e: Stripe.errors.StripeError) => e);
    assert.ok(error instanceof Stripe.errors.StripeAPIError);
    assert.equal(error.statusCode, 500);
    assert.equal(error.type, 'StripeAPIError');
    assert.deepEqual(await byOrder('o_500'), []);
    const retried = await stripe.paymentIntents.create(params('o_500'), { idempotencyKey: 'k-500' });
    assert.equal(retried.status, 'succeeded');
    assert.equal(retried.lastResponse.headers['idempotent-replayed'], undefined);
  });

  test('drop-response: the payment happens, the answer is lost; the SDK’s one retry of a closed connection gets the replay', async () => {
    s.faults.add({ method: 'POST', path: /^\/v1\/payment_intents$/, mode: 'drop-response', times: 1 });
    const pi = await stripe.paymentIntents.create(params('o_drop_once'));
    assert.equal(pi.status, 'succeeded');
    assert.equal(pi.lastResponse.headers['idempotent-replayed'], 'true');
    const attempts = s.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.body.includes('o_drop_once'),
    );
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0]!.headers['idempotency-key'], attempts[1]!.headers['idempotency-key']);
    assert.equal((await byOrder('o_drop_once')).length, 1, 'charged once');
  });

  test('drop-response every time: the caller sees a connection error, yet the money moved', async () => {
    s.faults.add({ method: 'POST', path: /^\/v1\/payment_intents$/, mode: 'drop-response' });
    const error = await stripe.paymentIntents
      .create(params('o_drop'), { idempotencyKey: 'k-drop' })
      .catch((e: Stripe.errors.StripeError) => e);
    assert.ok(error instanceof Stripe.errors.StripeConnectionError);
    const [moved] = await byOrder('o_drop');
    assert.equal(moved?.status, 'succeeded');
    s.faults.clear();
    const replay = await stripe.paymentIntents.create(params('o_drop'), { idempotencyKey: 'k-drop' });
    assert.equal(replay.id, moved.id);
    assert.equal(replay.lastResponse.headers['idempotent-replayed'], 'true');
  });

  test('hang: no answer until the caller gives up; other methods and paths are untouched', async () => {
    s.faults.add({ method: 'POST', path: /^\/v1\/payment_intents$/, mode: 'hang' });
    const impatient = new Stripe(s.secretKey, {
      host: s.host,
      port: s.port,
      protocol: 'http',
      maxNetworkRetries: 0,
      timeout: 300,
    });
    const started = Date.now();
    const error = await impatient.paymentIntents.create(params('o_hang')).catch((e: Stripe.errors.StripeError) => e);
    assert.ok(error instanceof Stripe.errors.StripeConnectionError);
    assert.ok(Date.now() - started >= 290);
    assert.deepEqual(await byOrder('o_hang'), [], 'a hanging request does nothing');
    assert.equal((await stripe.customers.create({ email: 'still@example.com' })).object, 'customer');
    assert.equal((await stripe.paymentIntents.list({ limit: 1 })).object, 'list');
  });
});
