import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { dropRedisKeys, REDIS_URL, redisPrefix, redisReachable } from '../../support/databases.ts';
import { hiddenFields } from '../../support/checkout-form.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The checkout's own limits (docs/decisions.md §14, "Checkout sessions"; src/http/pages/checkout/checkout-limits.ts):
 * quotes and sessions a minute per client address and per product, counted in this process or, with
 * REDIS_URL, in Redis for every process; a request over one is 429 `{error, message}` with Retry-After,
 * and a session refused never reaches Stripe. The flood itself, with the defaults, is in
 * test/stripe/checkout-session-flood.test.ts.
 */
const reachable = await redisReachable();
const prefixes: string[] = [];
after(() => Promise.all(prefixes.map(dropRedisKeys)));
const inRedis = () => {
  const prefix = redisPrefix();
  prefixes.push(prefix);
  return { REDIS_URL, REDIS_KEY_PREFIX: prefix };
};
const counters: [string, () => Record<string, string>, false | string][] = [
  ['in this process', () => ({}), false],
  ['in Redis', inRedis, !reachable && `no Redis at ${REDIS_URL}`],
];
const QUOTE_LIMITS = { CHECKOUT_QUOTES_PER_ADDRESS: '5', CHECKOUT_QUOTES_PER_PRODUCT: '8', TRUST_PROXY: '127.0.0.1' };
const SESSION_LIMITS = {
  CHECKOUT_SESSIONS_PER_ADDRESS: '3',
  CHECKOUT_SESSIONS_PER_PRODUCT: '5',
  TRUST_PROXY: '127.0.0.1',
};

interface Answer {
  status: number;
  retryAfter: string | null;
  json: Record<string, string>;
}
const answerOf = async (res: Response): Promise<Answer> => ({
  status: res.status,
  retryAfter: res.headers.get('retry-after'),
  json: (await res.json()) as Record<string, string>,
});

function assertLimited(answer: Answer, by: 'address' | 'product', what: string) {
  assert.equal(answer.status, 429, JSON.stringify(answer.json));
  assert.equal(answer.json.error, 'RATE_LIMITED');
  const whose = by === 'address' ? 'from your address' : 'for this product right now';
  assert.match(
    answer.json.message!,
    new RegExp(`^Too many ${what} ${whose}; wait \\d+ s and try again\\. Nothing was charged\\.$`),
  );
  const retryAfter = Number(answer.retryAfter);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${answer.retryAfter}`);
}

for (const kind of await storeKinds()) {
  for (const [where, env, skip] of counters) {
    describe(`the checkout's quote limits, counted ${where} (${kind})`, { skip }, () => {
      let t: TestApp;
      let v: TestVendor;
      // One Redis prefix for the suite: its second process counts with its first.
      const counted = env();
      before(async () => {
        t = await startTestApp(kind, { env: { ...counted, ...QUOTE_LIMITS } });
        v = await t.newVendor();
      });
      after(() => t?.close());

      const product = (environment: 'sandbox' | 'production' = 'sandbox') =>
        v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] }, environment).then((p) => p.id);
      const quote = async (id: string, from: string, query = 'country=US', prefix = '/sandbox') =>
        answerOf(
          await fetch(`${t.url}${prefix}/payment/product/${id}/quote?${query}`, {
            headers: { 'x-forwarded-for': from },
          }),
        );

      test('per address: the 6th quote of 5 a minute is 429 with Retry-After and says why; other addresses and the other environment count apart', async () => {
        const [id, other, live] = [await product(), await product(), await product('production')];
        for (let i = 1; i <= 5; i++)
          assert.equal((await quote(i % 2 ? id : other, '10.0.0.1')).status, 200, `quote ${i}`);
        assertLimited(await quote(id, '10.0.0.1'), 'address', 'price updates');
        assertLimited(await quote(other, '10.0.0.1'), 'address', 'price updates');
        assert.equal((await quote(id, '10.0.0.2')).status, 200, 'another address');
        assert.equal(
          (await quote(live, '10.0.0.1', 'country=US', '')).status,
          200,
          'production counts apart from the sandbox',
        );
        // An IPv6 client counts by its /64.
        const [a, b] = [await product(), await product()];
        for (let i = 0; i < 5; i++) assert.equal((await quote(i % 2 ? a : b, `2001:db8:1:2::${i + 1}`)).status, 200);
        assertLimited(await quote(a, '2001:db8:1:2::ffff'), 'address', 'price updates');
        assert.equal((await quote(a, '2001:db8:1:3::1')).status, 200);
      });

      test("per product: the 9th valid quote of 8 a minute, from any addresses and the product's customized links, is 429; a malformed quote does not count; another product is priced", async () => {
        const [id, other] = [await product(), await product()];
        const customized = (
          await v.api(`/v1/customize-product/${id}`, { body: { prices: [{ currency: 'USD', value: 15 }] } })
        ).json.customizedProductId;
        for (let i = 0; i < 3; i++)
          assert.equal((await quote(id, `10.1.0.${i}`, 'country=ZZZ')).status, 400, 'malformed');
        for (let i = 0; i < 8; i++)
          assert.equal((await quote(i % 2 ? id : customized, `10.2.0.${i}`)).status, 200, `quote ${i + 1}`);
        assertLimited(await quote(id, '10.3.0.1'), 'product', 'price updates');
        assertLimited(await quote(customized, '10.3.0.2'), 'product', 'price updates');
        assert.equal((await quote(other, '10.3.0.1')).status, 200, 'each product counts apart');
      });

      if (where === 'in Redis')
        test("two processes count a client's quotes together", async () => {
          const two = await startTestApp(kind, { env: { ...counted, ...QUOTE_LIMITS }, database: t.services.database });
          try {
            const id = await product();
            const at = async (app: TestApp) =>
              (
                await fetch(`${app.url}/sandbox/payment/product/${id}/quote?country=US`, {
                  headers: { 'x-forwarded-for': '10.9.0.1' },
                })
              ).status;
            assert.deepEqual(
              [await at(t), await at(two), await at(t), await at(two), await at(t), await at(two)],
              [200, 200, 200, 200, 200, 429],
            );
          } finally {
            await two.close();
          }
        });
    });

    describe(`the checkout's session limits through Stripe, counted ${where} (${kind})`, { skip }, () => {
      let w: StripeWorld;
      before(async () => {
        w = await startStripeWorld(kind, { env: { ...env(), ...SESSION_LIMITS } });
      });
      after(() => w?.close());

      const product = () =>
        w.vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] }, 'production').then((p) => p.id);
      const formOf = async (id: string) =>
        hiddenFields(await (await fetch(`${w.app.url}/payment/product/${id}`)).text());
      const post = async (path: string, form: Record<string, string>, from: string) =>
        fetch(`${w.app.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
          body: new URLSearchParams({
            email: 'limits@example.com',
            token: randomBytes(18).toString('base64url'),
            ...form,
          }),
        });
      const session = async (id: string, form: Record<string, string>, from: string) =>
        answerOf(await post(`/payment/product/${id}/session`, form, from));
      const intentsAtStripe = () =>
        w.standin.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents').length;

      test('per address: the 4th session of 3 a minute is 429 and Stripe never hears of it; another address may pay', async () => {
        const id = await product();
        const form = await formOf(id);
        const before = intentsAtStripe();
        for (let i = 0; i < 3; i++) assert.equal((await session(id, form, '10.0.0.1')).status, 200);
        assertLimited(await session(id, form, '10.0.0.1'), 'address', 'payments started');
        assert.equal(intentsAtStripe() - before, 3);
        assert.equal((await session(id, form, '10.0.0.2')).status, 200);
      });

      test('per product: the 6th valid session of 5 a minute is 429 from any address; a malformed form does not count; another product sells', async () => {
        const [id, other] = [await product(), await product()];
        const form = await formOf(id);
        for (const [i, bad] of (
          [{ token: 'short' }, { token: 'short' }, { expectedTotal: '' }] as Record<string, string>[]
        ).entries())
          assert.equal(
            (await session(id, { ...form, ...bad }, `10.1.0.${i}`)).status,
            400,
            `malformed: ${JSON.stringify(bad)}`,
          );
        const before = intentsAtStripe();
        for (let i = 0; i < 5; i++)
          assert.equal((await session(id, form, `10.2.0.${i}`)).status, 200, `session ${i + 1}`);
        assertLimited(await session(id, form, '10.3.0.1'), 'product', 'payments started');
        assert.equal(intentsAtStripe() - before, 5);
        assert.equal((await session(other, await formOf(other), '10.3.0.1')).status, 200, 'each product counts apart');
      });

      test('a form sent without its script (card field needs JavaScript) starts nothing at Stripe, however often', async () => {
        const id = await product();
        const form = await formOf(id);
        const before = w.standin.requests.filter((r) => r.method === 'POST').length;
        for (let i = 0; i < 20; i++) {
          const res = await post(`/payment/product/${id}`, { ...form, country: 'US' }, `10.4.0.${i}`);
          assert.equal(res.status, 400);
          assert.match(await res.text(), /The card field needs JavaScript/);
        }
        assert.equal(
          w.standin.requests.filter((r) => r.method === 'POST').length,
          before,
          'no customer, no PaymentIntent',
        );
      });
    });
  }
}
