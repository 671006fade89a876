import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { windowCounter } from '../../src/http/rate-limits.ts';
import { dropRedisKeys, REDIS_URL, redisPrefix, redisReachable } from '../../support/databases.ts';
import { startTestApp } from '../helpers/test-app.ts';

/**
 * The per-address limit (docs/decisions.md §4) answers alike whether this process counts it
 * (src/http/rate-limits.ts) or the rate-limit plugin counts it in Redis.
 */
const reachable = await redisReachable();
const prefixes: string[] = [];
after(() => Promise.all(prefixes.map(dropRedisKeys)));

/** Each test its own counts: in Redis, a key prefix of its own (a window there outlives the test). */
const inRedis = () => {
  const prefix = redisPrefix();
  prefixes.push(prefix);
  return { REDIS_URL, REDIS_KEY_PREFIX: prefix };
};
const counters: [string, () => Record<string, string>, false | string][] = [
  ['in this process', () => ({}), false],
  ['in Redis', inRedis, !reachable && `no Redis at ${REDIS_URL}`],
];

for (const [where, env, skip] of counters) {
  describe(`the per-address limit, counted ${where}`, { skip }, () => {
    test('counted answers carry the limit headers; the 6th request of 5 a minute is 429 with Retry-After; refused credentials and health checks are not counted', async () => {
      const t = await startTestApp('sqlite', { env: { ...env(), RATE_LIMIT_PER_ADDRESS: '5' } });
      try {
        const v = await t.newVendor();
        for (let i = 0; i < 3; i++)
          assert.equal((await v.api('/v1/changed-transactions', { authorization: 'test_nobody:wrong' })).status, 401);
        assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
        for (let i = 1; i <= 5; i++) {
          const res = await v.api('/v1/changed-transactions');
          assert.equal(res.status, 200, `request ${i}: ${res.text}`);
          assert.deepEqual(
            [res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')],
            ['5', String(5 - i)],
            `request ${i}`,
          );
          const reset = Number(res.headers.get('x-ratelimit-reset'));
          assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `x-ratelimit-reset: ${reset}`);
        }
        const limited = await v.api('/v1/changed-transactions');
        assert.deepEqual([limited.status, limited.json.error], [429, 'RATE_LIMITED'], limited.text);
        assert.match(limited.json.message, /^Too many requests from this address; retry in \d+ s\.$/);
        assert.equal(limited.json.requestId, limited.headers.get('x-request-id'));
        assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
        const retryAfter = Number(limited.headers.get('retry-after'));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
        // A hosted page is limited by the same count; the health check never is.
        assert.equal((await fetch(`${t.url}/docs`)).status, 429);
        assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
      } finally {
        await t.close();
      }
    });

    test('an IPv6 /64 counts as one address, a mapped IPv4 address as the IPv4 address, and each apart from the others', async () => {
      const t = await startTestApp('sqlite', {
        env: { ...env(), RATE_LIMIT_PER_ADDRESS: '2', TRUST_PROXY: '127.0.0.1' },
      });
      try {
        const v = await t.newVendor();
        const from = async (address: string) =>
          (await v.api('/v1/changed-transactions', { headers: { 'x-forwarded-for': address } })).status;
        assert.deepEqual(
          [await from('2001:db8:1:2::1'), await from('2001:DB8:1:2:ffff::9'), await from('2001:db8:1:2::1')],
          [200, 200, 429],
        );
        assert.equal(await from('2001:db8:1:3::1'), 200, 'the next /64 counts apart');
        assert.deepEqual(
          [await from('::ffff:10.0.0.7'), await from('10.0.0.7'), await from('10.0.0.7')],
          [200, 200, 429],
        );
        assert.equal(await from('10.0.0.8'), 200);
      } finally {
        await t.close();
      }
    });

    test("the client script's routes count apart, with a tenth of the budget", async () => {
      const t = await startTestApp('sqlite', { env: { ...env(), RATE_LIMIT_PER_ADDRESS: '20' } });
      try {
        const v = await t.newVendor();
        const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
        const price = () => fetch(`${t.url}/sandbox/public/v1/price/${product.id}?country=US`);
        const first = await price();
        assert.equal(first.status, 200);
        assert.deepEqual(
          [first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')],
          ['2', '1'],
        );
        assert.equal((await price()).status, 200);
        const limited = await price();
        assert.equal(limited.status, 429);
        assert.equal(((await limited.json()) as { error: string }).error, 'RATE_LIMITED');
        const api = await v.api('/v1/changed-transactions');
        assert.deepEqual(
          [api.status, api.headers.get('x-ratelimit-limit'), api.headers.get('x-ratelimit-remaining')],
          [200, '20', '19'],
        );
      } finally {
        await t.close();
      }
    });
  });
}

describe('the in-process window counter', () => {
  test('a window starts with its first request, refuses past the limit, and a new one starts when it ends', () => {
    const hit = windowCounter(2, 60_000);
    const at = 1_000_000;
    assert.deepEqual(hit('a', at), { limit: 2, remaining: 1, resetSeconds: 60, exceeded: false });
    assert.deepEqual(hit('a', at + 30_500), { limit: 2, remaining: 0, resetSeconds: 30, exceeded: false });
    assert.deepEqual(hit('a', at + 59_999), { limit: 2, remaining: 0, resetSeconds: 1, exceeded: true });
    assert.equal(hit('b', at + 59_999).exceeded, false, 'each key counts alone');
    assert.deepEqual(hit('a', at + 60_000), { limit: 2, remaining: 1, resetSeconds: 60, exceeded: false });
  });

  test('beyond its keys it forgets the one used least recently, not a busy one that came first', () => {
    const hit = windowCounter(1, 60_000, 2);
    hit('busy', 0);
    hit('idle', 1);
    hit('busy', 2);
    hit('new', 3);
    assert.equal(hit('busy', 4).exceeded, true, 'the busy key is still counted');
    assert.equal(hit('idle', 5).exceeded, false, 'the idle key was forgotten');
  });
});
