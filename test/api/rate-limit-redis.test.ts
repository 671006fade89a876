import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dropRedisKeys, REDIS_URL, redisPrefix, redisReachable } from '../../support/databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * Rate limits across processes (issue 16): two apps on one store stand for two `opentill serve`
 * processes; with REDIS_URL they count together, without it each alone; a Redis that stops
 * answering lets requests through rather than failing them.
 */
const reachable = await redisReachable();

describe('rate limits shared through Redis', { skip: !reachable && `no Redis at ${REDIS_URL}` }, () => {
  const prefix = redisPrefix();
  const limits = { RATE_LIMIT_PER_CREDENTIAL: '5', AUTH_FAILURES_PER_MINUTE: '3' };
  let one: TestApp;
  let two: TestApp;
  before(async () => {
    one = await startTestApp('sqlite', { env: { ...limits, REDIS_URL, REDIS_KEY_PREFIX: prefix } });
    // The second process: its own app and caches over the first one's database.
    two = await startTestApp('sqlite', {
      env: { ...limits, REDIS_URL, REDIS_KEY_PREFIX: prefix },
      database: one.services.database,
    });
  });
  after(async () => {
    await two?.close();
    await one?.close();
    await dropRedisKeys(prefix);
  });

  test("a credential's requests count in every process together", async () => {
    const v = await one.newVendor();
    const statuses: number[] = [];
    for (const app of [one, two, one, two, one, two]) {
      const res = await fetch(`${app.url}/sandbox/v1/changed-transactions`, {
        headers: { authorization: v.credentials.sandbox.authorization },
      });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], 'five allowed a minute, wherever they land');
  });

  test('failed authentications from one address count in every process together', async () => {
    const statuses: number[] = [];
    for (const app of [one, two, one, two]) {
      statuses.push(
        (await fetch(`${app.url}/sandbox/v1/changed-transactions`, { headers: { authorization: 'test_nobody:wrong' } }))
          .status,
      );
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  });
});

describe('rate limits without Redis, and with a Redis that does not answer', () => {
  test('without REDIS_URL each process counts alone; an unreachable Redis limits nothing and fails nothing', async () => {
    const alone = await startTestApp('sqlite', { env: { RATE_LIMIT_PER_CREDENTIAL: '2' } });
    const broken = await startTestApp('sqlite', {
      env: { RATE_LIMIT_PER_CREDENTIAL: '2', REDIS_URL: 'redis://127.0.0.1:1' },
      database: alone.services.database,
    });
    try {
      const v = await alone.newVendor();
      const get = (app: TestApp) =>
        fetch(`${app.url}/sandbox/v1/changed-transactions`, {
          headers: { authorization: v.credentials.sandbox.authorization },
        }).then((r) => r.status);
      assert.deepEqual(
        [await get(alone), await get(alone), await get(alone)],
        [200, 200, 429],
        'this process counts its own',
      );
      assert.deepEqual(
        [await get(broken), await get(broken), await get(broken)],
        [200, 200, 200],
        'no counter, no limit, no failure',
      );
    } finally {
      await broken.close();
      await alone.close();
    }
  });
});
