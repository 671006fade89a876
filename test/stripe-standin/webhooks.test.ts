import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';

/** A webhook receiver on loopback: records what arrives, answers with the status the test sets. */
async function receiver() {
  const received: { path: string; body: string; signature: string; contentType: string }[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        signature: String(req.headers['stripe-signature']),
        contentType: String(req.headers['content-type']),
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    answer: (s: number) => {
      status = s;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const pay = (stripe: Stripe, metadata: Record<string, string> = {}) =>
  stripe.paymentIntents.create({
    amount: 1800,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    allowed_payment_method_types: ['card'],
    confirm: true,
    metadata,
  });

describe('Stripe stand-in: webhooks, delivered as they happen', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  let hook: Awaited<ReturnType<typeof receiver>>;

  before(async () => {
    s = await startStripeStandIn();
    stripe = s.client();
    hook = await receiver();
  });
  after(async () => {
    await s.close();
    await hook.close();
  });
  beforeEach(() => {
    hook.received.length = 0;
    hook.answer(200);
  });

  test('endpoints are registered through the API; the secret is shown only at creation', async () => {
    const endpoint = await stripe.webhookEndpoints.create({
      url: hook.url('/only-succeeded'),
      enabled_events: ['payment_intent.succeeded'],
      description: 'opentill',
    });
    assert.match(endpoint.secret!, /^whsec_/);
    assert.equal(endpoint.status, 'enabled');
    const listed = await stripe.webhookEndpoints.list();
    assert.equal(listed.data.length, 1);
    assert.equal(listed.data[0]!.secret, undefined);
    const invalid = await stripe.webhookEndpoints
      .create({ url: hook.url('/x'), enabled_events: ['payment_intent.succeded' as 'payment_intent.succeeded'] })
      .catch((e) => e);
    assert.equal(invalid.param, 'enabled_events[0]');
    const outside = await stripe.webhookEndpoints
      .create({ url: 'https://example.com/hook', enabled_events: ['*'] })
      .catch((e) => e);
    assert.equal(outside.param, 'url');

    const pi = await pay(stripe, { order: 'o_hook' });
    await s.webhooksSettled();
    assert.equal(hook.received.length, 1, 'only the subscribed type');
    const [delivery] = hook.received;
    assert.equal(delivery!.path, '/only-succeeded');
    assert.equal(delivery!.contentType, 'application/json; charset=utf-8');
    const event = stripe.webhooks.constructEvent(delivery!.body, delivery!.signature, endpoint.secret!);
    assert.equal(event.type, 'payment_intent.succeeded');
    assert.equal(event.api_version, '2026-10-28.endive');
    assert.equal(event.livemode, false);
    const object = event.data.object as Stripe.PaymentIntent;
    assert.equal(object.id, pi.id);
    assert.deepEqual(object.metadata, { order: 'o_hook' });
    assert.equal(
      delivery!.body,
      JSON.stringify({ ...event, pending_webhooks: 1 }, null, 2),
      'pretty-printed like Stripe, pending_webhooks as sent',
    );
    assert.throws(() => stripe.webhooks.constructEvent(delivery!.body, delivery!.signature, 'whsec_other'));
    assert.equal(s.events().find((e) => e.id === event.id)!.pending_webhooks, 0);
    assert.deepEqual(
      s.deliveries.map((d) => [d.eventId, d.status]),
      [[event.id, 200]],
    );
    await stripe.webhookEndpoints.del(endpoint.id);
  });

  test("'*' gets every event, in the order they happened", async () => {
    const endpoint = await stripe.webhookEndpoints.create({ url: hook.url('/all'), enabled_events: ['*'] });
    const pi = await pay(stripe);
    await s.webhooksSettled();
    const types = hook.received.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, endpoint.secret!).type);
    assert.deepEqual(types, ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded']);
    assert.ok(hook.received.every((r) => r.body.includes(pi.id)));
    await stripe.webhookEndpoints.del(endpoint.id);
  });

  test('a failed delivery stays queued; deliverAll delivers it again; deliver() redelivers on demand', async () => {
    const endpoint = await stripe.webhookEndpoints.create({
      url: hook.url('/flaky'),
      enabled_events: ['charge.succeeded'],
    });
    hook.answer(500);
    await pay(stripe);
    await s.webhooksSettled();
    const failed = s.deliveries.at(-1)!;
    assert.equal(failed.status, 500);
    assert.equal(s.events().find((e) => e.id === failed.eventId)!.pending_webhooks, 1);
    hook.answer(204);
    await s.deliverAll();
    assert.equal(s.deliveries.at(-1)!.status, 204);
    assert.equal(s.deliveries.at(-1)!.eventId, failed.eventId);
    assert.equal(s.events().find((e) => e.id === failed.eventId)!.pending_webhooks, 0);
    const before = hook.received.length;
    await s.deliverAll();
    assert.equal(hook.received.length, before, 'nothing left to deliver');
    hook.answer(200);
    assert.equal(await s.deliver(failed.eventId, { times: 3 }), 200);
    assert.equal(hook.received.length, before + 3);
    const ids = new Set(hook.received.map((r) => (JSON.parse(r.body) as Stripe.Event).id));
    assert.deepEqual([...ids], [failed.eventId]);

    await stripe.webhookEndpoints.update(endpoint.id, { enabled_events: ['refund.created'] });
    const pi = await pay(stripe);
    await stripe.refunds.create({ payment_intent: pi.id });
    await s.webhooksSettled();
    assert.equal((JSON.parse(hook.received.at(-1)!.body) as Stripe.Event).type, 'refund.created');
    await stripe.webhookEndpoints.del(endpoint.id);
  });
});

describe('Stripe stand-in: webhooks delivered when the test says so', () => {
  test('manual mode: nothing until deliverAll, then every event in creation order', async () => {
    const s = await startStripeStandIn({ webhookDelivery: 'manual' });
    const hook = await receiver();
    try {
      const stripe = s.client();
      const endpoint = await stripe.webhookEndpoints.create({
        url: hook.url('/manual'),
        enabled_events: ['payment_intent.succeeded', 'refund.created'],
      });
      const pi = await pay(stripe);
      await s.refundFromDashboard(pi.id);
      await s.webhooksSettled();
      assert.equal(hook.received.length, 0);
      await s.deliverAll();
      const types = hook.received.map(
        (r) => stripe.webhooks.constructEvent(r.body, r.signature, endpoint.secret!).type,
      );
      assert.deepEqual(types, ['payment_intent.succeeded', 'refund.created']);
    } finally {
      await s.close();
      await hook.close();
    }
  });
});
