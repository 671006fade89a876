import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, storeKinds, type ApiResponse, type TestApp, type TestVendor } from '../helpers/test-app.ts';

function assertError(res: ApiResponse, status: number, error: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.equal(res.json?.error, error, res.text);
  assert.equal(typeof res.json?.message, 'string', res.text);
}

for (const kind of await storeKinds()) {
  describe(`authentication and isolation (${kind})`, () => {
    let t: TestApp;
    let a: TestVendor;
    let b: TestVendor;
    before(async () => {
      t = await startTestApp(kind);
      a = await t.newVendor('Vendor A');
      b = await t.newVendor('Vendor B');
    });
    after(() => t.close());

    test('each credential works at its own environment and gets 401 at the other', async () => {
      const ok = (res: ApiResponse) => assert.equal(res.status, 200, res.text);
      ok(await a.api('/v1/generate-url-to-admin', { environment: 'sandbox' }));
      ok(await a.api('/v1/generate-url-to-admin', { environment: 'production' }));
      assertError(
        await a.api('/v1/generate-url-to-admin', {
          environment: 'production',
          authorization: a.credentials.sandbox.authorization,
        }),
        401,
        'UNAUTHORIZED',
      );
      assertError(
        await a.api('/v1/generate-url-to-admin', {
          environment: 'sandbox',
          authorization: a.credentials.production.authorization,
        }),
        401,
        'UNAUTHORIZED',
      );
      assertError(
        await a.api('/v1/changed-transactions', {
          environment: 'production',
          authorization: b.credentials.sandbox.authorization,
        }),
        401,
        'UNAUTHORIZED',
      );
    });

    test('a wrong password for a real login is 401', async () => {
      const { login, password } = a.credentials.sandbox;
      const wrong = password.slice(0, -1) + (password.endsWith('A') ? 'B' : 'A');
      assertError(
        await a.api('/v1/generate-url-to-admin', { authorization: `${login}:${wrong}` }),
        401,
        'UNAUTHORIZED',
      );
      assertError(
        await a.api('/v1/generate-url-to-admin', { authorization: `${login}:${b.credentials.sandbox.password}` }),
        401,
        'UNAUTHORIZED',
      );
    });

    test("a revoked credential gets 401 at once while the vendor's other credentials keep working", async () => {
      const vendor = await t.newVendor('Revoking Vendor');
      const issued = await t.services.credentials.issue(vendor.scope('sandbox'));
      const res = await vendor.api('/v1/generate-url-to-admin', { authorization: issued.authorization });
      assert.equal(res.status, 200, res.text); // now in the authentication cache
      assert.equal(await t.services.credentials.revoke(vendor.scope('sandbox'), issued.id), true);
      assertError(
        await vendor.api('/v1/generate-url-to-admin', { authorization: issued.authorization }),
        401,
        'UNAUTHORIZED',
      );
      assert.equal((await vendor.api('/v1/generate-url-to-admin')).status, 200);
      assert.equal((await vendor.api('/v1/generate-url-to-admin', { environment: 'production' })).status, 200);
    });

    test("vendor A can neither read nor change any of vendor B's records: 404 each, B's records unchanged", async () => {
      const onetime = await b.product({
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 20 }],
        issuesLicences: true,
      });
      const subscription = await b.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 9 }],
      });
      const vaulted = await b.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const paid = await b.buy(onetime.id, { email: 'b-customer@example.com', payload: 'b-payload' });
      const sub = await b.buy(subscription.id, { email: 'b-customer@example.com' });
      const vault = await b.buy(vaulted.id, { email: 'b-customer@example.com' });
      const read = async () => ({
        paid: (await b.api(`/v1/transaction/${paid}`)).json,
        sub: (await b.api(`/v1/transaction/${sub}`)).json,
        vault: (await b.api(`/v1/transaction/${vault}`)).json,
        feed: (await b.api('/v1/changed-transactions')).json
          .map((c: { id: string; changeStatus: string }) => [c.id, c.changeStatus])
          .sort(),
      });
      const before = await read();
      assert.equal(before.paid.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(before.sub.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(before.vault.transactionStatus, 'VAULTED_STATUS_ACTIVE');
      assert.equal(before.feed.length, 3);

      const prices = [{ currency: 'USD', value: 5 }];
      assertError(await a.api(`/v1/transaction/${paid}`), 404, 'NOT_FOUND');
      assertError(await a.api(`/v1/refund-transaction/${paid}`, { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await a.api(`/v1/cancel-subscription/${sub}`, { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await a.api(`/v1/cancel-subscription/${vault}`, { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(
        await a.api(`/v1/transaction/${paid}`, { body: { assignEmail: 'attacker@example.com' } }),
        404,
        'NOT_FOUND',
      );
      assertError(await a.api(`/v1/transaction/${paid}`, { body: { payload: 'attacker' } }), 404, 'NOT_FOUND');
      assertError(await a.api(`/v1/changed-transactions/${paid}`, { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await a.api(`/v1/customize-product/${onetime.id}`, { body: { prices } }), 404, 'NOT_FOUND');
      assertError(await a.api(`/v1/charge-vaulted/${vault}`, { body: { prices } }), 404, 'NOT_FOUND');
      assertError(await a.api(`/v1/check-licence/${onetime.id}/ANY-KEY`), 404, 'NOT_FOUND');
      const ownProduct = await a.product({ type: 'SUBSCRIPTION', prices: [{ currency: 'USD', value: 9 }] });
      assertError(
        await a.api(`/v1/customize-product/${ownProduct.id}`, { body: { prices, transactionIdToMigrate: sub } }),
        404,
        'NOT_FOUND',
      );
      const listed = await a.api('/v1/transactions/b-customer%40example.com');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.json, []);
      assert.equal(
        (await a.api('/v1/changed-transactions')).json.some((c: { id: string }) => [paid, sub, vault].includes(c.id)),
        false,
      );

      assert.deepEqual(await read(), before);
      assert.equal(before.vault.entries.filter((e: { type: string }) => e.type === 'VAULTED_PAYMENT').length, 0);
      assert.equal(before.paid.payload, 'b-payload');
      assert.equal(before.paid.assignedEmail, null);
    });

    test('sandbox and production data are separate: a sandbox purchase is invisible in production', async () => {
      const product = await a.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] }, 'sandbox');
      const id = await a.buy(product.id, { email: 'sandbox-only@example.com' }, 'sandbox');
      const sandboxList = await a.api('/v1/transactions/sandbox-only%40example.com', { environment: 'sandbox' });
      assert.deepEqual(
        sandboxList.json.map((tx: { id: string }) => tx.id),
        [id],
      );
      const productionList = await a.api('/v1/transactions/sandbox-only%40example.com', { environment: 'production' });
      assert.equal(productionList.status, 200, productionList.text);
      assert.deepEqual(productionList.json, []);
      assertError(await a.api(`/v1/transaction/${id}`, { environment: 'production' }), 404, 'NOT_FOUND');
      assertError(
        await a.api(`/v1/refund-transaction/${id}`, { environment: 'production', method: 'POST' }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await a.api(`/v1/customize-product/${product.id}`, {
          environment: 'production',
          body: { prices: [{ currency: 'USD', value: 1 }] },
        }),
        404,
        'NOT_FOUND',
      );
      const productionFeed = await a.api('/v1/changed-transactions', { environment: 'production' });
      assert.equal(
        productionFeed.json.some((c: { id: string }) => c.id === id),
        false,
      );
      assert.equal(
        (await a.api('/v1/changed-transactions')).json.some((c: { id: string }) => c.id === id),
        true,
      );
      assert.equal((await a.api(`/v1/transaction/${id}`)).json.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
    });

    test('a production purchase is invisible in the sandbox', async () => {
      const product = await a.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] }, 'production');
      const id = await a.buy(product.id, { email: 'live-only@example.com' }, 'production');
      assert.equal((await a.api(`/v1/transaction/${id}`, { environment: 'production' })).status, 200);
      assertError(await a.api(`/v1/transaction/${id}`, { environment: 'sandbox' }), 404, 'NOT_FOUND');
      assert.deepEqual((await a.api('/v1/transactions/live-only%40example.com', { environment: 'sandbox' })).json, []);
    });
  });

  describe(`rate limits (${kind})`, () => {
    test('repeated auth failures from one address get 429 with Retry-After, yet the real vendor still gets 200', async () => {
      const t = await startTestApp(kind, { env: { AUTH_FAILURES_PER_MINUTE: '5' } });
      try {
        const v = await t.newVendor();
        const bad = `${v.credentials.sandbox.login}:wrong-password`;
        for (let i = 1; i <= 5; i++)
          assertError(await v.api('/v1/generate-url-to-admin', { authorization: bad }), 401, 'UNAUTHORIZED');
        const limited = await v.api('/v1/generate-url-to-admin', { authorization: bad });
        assertError(limited, 429, 'RATE_LIMITED');
        const retryAfter = Number(limited.headers.get('retry-after'));
        assert.ok(
          Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
          `Retry-After: ${limited.headers.get('retry-after')}`,
        );
        assertError(await v.api('/v1/generate-url-to-admin', { authorization: '' }), 429, 'RATE_LIMITED');
        const real = await v.api('/v1/generate-url-to-admin');
        assert.equal(real.status, 200, real.text);
        assert.equal((await v.api('/v1/changed-transactions')).status, 200);
      } finally {
        await t.close();
      }
    });

    test("the 11th request of a credential limited to 10 a minute is 429 RATE_LIMITED with Retry-After; another vendor's credential still works", async () => {
      const t = await startTestApp(kind, { env: { RATE_LIMIT_PER_CREDENTIAL: '10' } });
      try {
        const v = await t.newVendor('Busy');
        const w = await t.newVendor('Quiet');
        for (let i = 1; i <= 10; i++) {
          const res = await v.api('/v1/generate-url-to-admin');
          assert.equal(res.status, 200, `request ${i}: ${res.text}`);
        }
        const limited = await v.api('/v1/generate-url-to-admin');
        assertError(limited, 429, 'RATE_LIMITED');
        const retryAfter = Number(limited.headers.get('retry-after'));
        assert.ok(
          Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
          `Retry-After: ${limited.headers.get('retry-after')}`,
        );
        const other = await w.api('/v1/generate-url-to-admin');
        assert.equal(other.status, 200, other.text);
      } finally {
        await t.close();
      }
    });
  });
}
