import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * The session flood of issue 32 (docs/decisions.md §14, "Checkout sessions"): anyone may post a checkout's
 * form with a fresh token, and each session makes a customer and a PaymentIntent at Stripe, whose API
 * limit renewals and refunds share. With the default limits, 200 fresh sessions from one address reach
 * Stripe 10 times, from 200 addresses 60 times (per product); a real customer's retries of one form
 * reuse its customer and PaymentIntent; abandoned sessions cost Stripe nothing until they expire, then
 * one look and one cancel each, and the worker counts them in /metrics.
 */
const MINUTE = 60_000;
const TOKEN = 'metrics-token-for-tests-0123456789abcdef';
/** Empty: the defaults (test-app.ts raises them for every other test). */
const DEFAULT_LIMITS = {
  CHECKOUT_SESSIONS_PER_ADDRESS: '',
  CHECKOUT_SESSIONS_PER_PRODUCT: '',
  CHECKOUT_QUOTES_PER_ADDRESS: '',
  CHECKOUT_QUOTES_PER_PRODUCT: '',
};
const FLOOD = 200;

for (const kind of await storeKinds()) {
  describe(`a flood of checkout sessions through Stripe (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, {
        clock,
        now: () => clock.now(),
        env: { ...DEFAULT_LIMITS, TRUST_PROXY: '127.0.0.1', METRICS_TOKEN: TOKEN },
      });
    });
    after(() => w?.close());

    const product = (value: number) =>
      w.vendor.product(
        { type: 'ONETIME', name: `Flooded ${value}`, prices: [{ currency: 'USD', value }] },
        'production',
      );
    const formOf = async (productId: string) =>
      hiddenFields(await (await fetch(`${w.app.url}/payment/product/${productId}`)).text());
    const startSession = async (productId: string, form: Record<string, string>, from?: string) => {
      const res = await fetch(`${w.app.url}/payment/product/${productId}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(from ? { 'x-forwarded-for': from } : {}) },
        body: new URLSearchParams({ email: 'flood@example.com', ...form }),
      });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        json: (await res.json()) as Record<string, string>,
      };
    };
    /** The customers and PaymentIntents Stripe made: one per idempotency key opentill sent (a replay makes none). */
    const madeAtStripe = () => {
      const keys = (path: string) =>
        new Set(
          w.standin.requests
            .filter((r) => r.method === 'POST' && r.path === path)
            .map((r) => r.headers['idempotency-key']),
        );
      return { customers: keys('/v1/customers').size, intents: keys('/v1/payment_intents').size };
    };
    const intentOf = (clientSecret: string) => clientSecret.split('_secret_')[0]!;
    /** Fresh form tokens, as the attacker made them; `from` gives each request's address. */
    async function flood(productId: string, from: (n: number) => string | undefined) {
      const form = await formOf(productId);
      const before = madeAtStripe();
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: FLOOD }, (_, n) =>
          startSession(productId, { ...form, token: randomBytes(18).toString('base64url') }, from(n)),
        ),
      );
      const ms = Date.now() - started;
      const made = madeAtStripe();
      const accepted = answers.filter((a) => a.status === 200);
      return {
        answers,
        accepted,
        ms,
        customers: made.customers - before.customers,
        intents: made.intents - before.intents,
      };
    }
    const assertRefused = (answers: Awaited<ReturnType<typeof flood>>['answers'], message: RegExp) => {
      for (const a of answers.filter((a) => a.status !== 200)) {
        assert.equal(a.status, 429, JSON.stringify(a.json));
        assert.equal(a.json.error, 'RATE_LIMITED');
        assert.match(a.json.message!, message);
        const retryAfter = Number(a.retryAfter);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${a.retryAfter}`);
      }
    };
    const abandoned: string[] = [];

    test('the defaults: 10 sessions and 60 quotes a minute per address, 60 sessions and 600 quotes per product', () => {
      assert.deepEqual(
        { ...w.app.config.rateLimit.checkout },
        { sessionsPerAddress: 10, sessionsPerProduct: 60, quotesPerAddress: 60, quotesPerProduct: 600 },
      );
    });

    test('200 fresh sessions from one address: 10 reach Stripe (one customer and one PaymentIntent each), 190 are 429 with Retry-After', async () => {
      const p = await product(49);
      const run = await flood(p.id, () => undefined);
      process.stdout.write(
        `# session flood ${kind}, one address: ${run.accepted.length} of ${FLOOD} accepted, ${run.customers} customers and ${run.intents} PaymentIntents at Stripe, ${run.ms} ms\n`,
      );
      assert.equal(run.accepted.length, 10);
      assert.deepEqual([run.customers, run.intents], [10, 10]);
      assertRefused(
        run.answers,
        /^Too many payments started from your address; wait \d+ s and try again\. Nothing was charged\.$/,
      );
      abandoned.push(...run.accepted.map((a) => intentOf(a.json.clientSecret!)));
      assert.equal(new Set(abandoned).size, 10, 'a PaymentIntent of its own for each form');
    });

    test('200 fresh sessions from 200 addresses: 60 reach Stripe for the product, the rest are 429; another product still sells', async () => {
      const p = await product(19);
      const run = await flood(p.id, (n) => `10.1.${n >> 8}.${n & 255}`);
      process.stdout.write(
        `# session flood ${kind}, ${FLOOD} addresses: ${run.accepted.length} of ${FLOOD} accepted, ${run.customers} customers and ${run.intents} PaymentIntents at Stripe, ${run.ms} ms\n`,
      );
      assert.equal(run.accepted.length, 60);
      assert.deepEqual([run.customers, run.intents], [60, 60]);
      assertRefused(
        run.answers,
        /^Too many payments started for this product right now; wait \d+ s and try again\. Nothing was charged\.$/,
      );
      abandoned.push(...run.accepted.map((a) => intentOf(a.json.clientSecret!)));
      const other = await product(29);
      const sells = await startSession(other.id, await formOf(other.id), '10.2.0.1');
      assert.equal(sells.status, 200, 'each product counts apart');
      abandoned.push(intentOf(sells.json.clientSecret!));
    });

    test("a customer's retries of one form (answers lost, a card declined in the card field) reuse its customer and PaymentIntent, and it pays once", async () => {
      const p = await product(39);
      const form = { ...(await formOf(p.id)), email: 'real@example.com' };
      const before = madeAtStripe();
      const from = '10.3.0.1';
      const first = await startSession(p.id, form, from);
      assert.equal(first.status, 200, JSON.stringify(first.json));
      const again = [
        await startSession(p.id, form, from),
        ...(await Promise.all(Array.from({ length: 4 }, () => startSession(p.id, form, from)))),
      ];
      for (const a of again) assert.equal(a.json.clientSecret, first.json.clientSecret, 'the same session');
      const method = (number: string) =>
        w.browser.paymentMethods.create({ type: 'card', card: { number, exp_month: 12, exp_year: 2035, cvc: '123' } });
      const confirm = async (number: string) =>
        w.browser.paymentIntents.confirm(intentOf(first.json.clientSecret!), {
          client_secret: first.json.clientSecret,
          payment_method: (await method(number)).id,
          return_url: 'https://shop.example/return',
        } as never);
      await assert.rejects(confirm('4000000000000002'), /declined/);
      const afterDecline = await startSession(p.id, form, from);
      assert.equal(
        afterDecline.json.clientSecret,
        first.json.clientSecret,
        'Pay pressed again after the decline: the same session',
      );
      assert.equal((await confirm('4242424242424242')).status, 'succeeded');
      const receipt = await fetch(`${w.app.url}/payment/product/${first.json.confirmUrl}`);
      assert.equal(receipt.status, 200);
      assert.match(await receipt.text(), /Payment of <strong>\$39\.00<\/strong> received/);
      const made = madeAtStripe();
      assert.deepEqual(
        [made.customers - before.customers, made.intents - before.intents],
        [1, 1],
        'one customer and one PaymentIntent for the form',
      );
    });

    /** opentill's looks at (and cancels of) these PaymentIntents at Stripe. */
    const looksAt = (ids: string[]) =>
      w.standin.requests.filter((r) =>
        ids.some((id) => r.path === `/v1/payment_intents/${id}` || r.path === `/v1/payment_intents/${id}/cancel`),
      ).length;

    test('a session whose confirmation page was opened is asked about by the worker at once, and its payment booked', async () => {
      const p = await product(59);
      const form = { ...(await formOf(p.id)), email: 'back@example.com' };
      const session = await startSession(p.id, form, '10.4.0.1');
      const id = intentOf(session.json.clientSecret!);
      const waiting = await fetch(`${w.app.url}/payment/product/${session.json.confirmUrl}`);
      assert.equal(waiting.status, 202, 'nothing paid yet: being confirmed');
      const before = looksAt([id]);
      clock.advance(2 * MINUTE);
      assert.equal((await runWorkerOnce(w.app.services)).attempts.open, 1);
      assert.equal(looksAt([id]) - before, 1, 'asked about at the next run');
      await w.browser.paymentIntents.confirm(id, {
        client_secret: session.json.clientSecret,
        payment_method: 'pm_card_visa',
        return_url: 'https://shop.example/return',
      } as never);
      clock.advance(2 * MINUTE);
      assert.equal(
        (await runWorkerOnce(w.app.services)).attempts.settled,
        1,
        'the customer paid and the page was lost: booked by the worker',
      );
      assert.equal(
        ((await w.vendor.api('/v1/transactions/back@example.com', { environment: 'production' })).json as unknown[])
          .length,
        1,
      );
    });

    test('abandoned sessions cost Stripe nothing until they expire, then one look and one cancel each; the worker counts them in /metrics', async () => {
      const before = looksAt(abandoned);
      // The worker runs on through the hour the sessions stay open (four minutes of it have passed).
      const reports = [];
      for (const minutes of [2, 10, 20, 22]) {
        clock.advance(minutes * MINUTE);
        reports.push((await runWorkerOnce(w.app.services)).attempts);
      }
      assert.equal(
        looksAt(abandoned),
        before,
        `no look at Stripe for an unfinished session within its hour: ${JSON.stringify(reports)}`,
      );
      assert.ok(
        reports.every((r) => r.open === 0 && r.voided === 0),
        JSON.stringify(reports),
      );

      clock.advance(4 * MINUTE);
      const expired = await runWorkerOnce(w.app.services);
      assert.equal(expired.attempts.expiredSessions, abandoned.length, JSON.stringify(expired.attempts));
      assert.equal(expired.attempts.voided, abandoned.length);
      assert.equal(looksAt(abandoned) - before, 2 * abandoned.length, 'one look and one cancel each');
      for (const id of abandoned) assert.equal((await w.stripe.paymentIntents.retrieve(id)).status, 'canceled', id);
      w.app.app.metrics!.observeBilling(expired);
      const scraped = await (
        await fetch(`${w.app.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).text();
      assert.match(scraped, new RegExp(`^opentill_checkout_sessions_expired_total ${abandoned.length}$`, 'm'));
      assert.match(scraped, /^opentill_charge_attempts_open 0$/m);
    });
  });
}
