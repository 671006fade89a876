import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * X-Forwarded-For names the client only when the peer that sent it is a listed proxy (TRUST_PROXY,
 * docs/decisions.md §11; `true` is refused at start, test/unit/config.test.ts). Observed through the
 * failed-login throttle, which counts per client address. The test client connects from 127.0.0.1.
 */
async function failuresUntilThrottled(t: TestApp, forwardedFor: (attempt: number) => string): Promise<number[]> {
  const v = await t.newVendor();
  const bad = `${v.credentials.sandbox.login}:wrong-password`;
  const statuses: number[] = [];
  for (let attempt = 1; attempt <= 5; attempt++) {
    const res = await v.api('/v1/changed-transactions', {
      authorization: bad,
      headers: { 'x-forwarded-for': forwardedFor(attempt) },
    });
    statuses.push(res.status);
  }
  return statuses;
}

for (const kind of await storeKinds()) {
  describe(`TRUST_PROXY (${kind})`, () => {
    const env = { AUTH_FAILURES_PER_MINUTE: '3' };

    test('X-Forwarded-For from a peer that is not a listed proxy is ignored: the 4th failure from that peer is 429', async () => {
      for (const trustProxy of ['10.0.0.0/8', '192.168.0.1,fd00::/8', 'false']) {
        const t = await startTestApp(kind, { env: { ...env, TRUST_PROXY: trustProxy } });
        try {
          assert.deepEqual(
            await failuresUntilThrottled(t, (attempt) => `203.0.113.${attempt}`),
            [401, 401, 401, 429, 429],
            `TRUST_PROXY=${trustProxy}`,
          );
        } finally {
          await t.close();
        }
      }
    });

    test('X-Forwarded-For from a listed proxy names the client: each forwarded client has its own throttle, and one client still gets 429', async () => {
      const t = await startTestApp(kind, { env: { ...env, TRUST_PROXY: '127.0.0.1,10.0.0.0/8' } });
      try {
        assert.deepEqual(
          await failuresUntilThrottled(t, (attempt) => `203.0.113.${attempt}`),
          [401, 401, 401, 401, 401],
        );
        assert.deepEqual(await failuresUntilThrottled(t, () => '198.51.100.7'), [401, 401, 401, 429, 429]);
        // A client that writes its own X-Forwarded-For in front of the proxy's entry is still the address the proxy saw.
        assert.deepEqual(
          await failuresUntilThrottled(t, (attempt) => `203.0.113.${attempt}, 198.51.100.8`),
          [401, 401, 401, 429, 429],
        );
      } finally {
        await t.close();
      }
    });
  });
}
