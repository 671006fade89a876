import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startTestApp, storeKinds, type ApiResponse, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/** Sends the path exactly as given (fetch would normalize '..' and re-encode), with a raw body. */
function raw(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = httpRequest({ hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function assertError(res: Pick<ApiResponse, 'status' | 'text'>, status: number, error?: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  const body = JSON.parse(res.text);
  assert.equal(typeof body.error, 'string', res.text);
  assert.equal(typeof body.message, 'string', res.text);
  assert.ok(body.message.length > 0);
  if (error) assert.equal(body.error, error, res.text);
}

/** Problems with the error body of a non-2xx answer, or undefined when it is {error, message}. */
function errorBodyProblem(text: string): string | undefined {
  try {
    const body = JSON.parse(text);
    return typeof body?.error === 'string' && typeof body?.message === 'string'
      ? undefined
      : `not {error, message}: ${text.slice(0, 200)}`;
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
}

for (const kind of await storeKinds()) {
  describe(`bad input changes nothing and answers 4xx {error, message} (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let other: TestVendor;
    let productId: string;
    let txId: string;
    let vaultedId: string;
    const snapshot = async (id = txId) => (await v.api(`/v1/transaction/${id}`)).json;
    /** Runs fn and proves by reading back through the API that the transaction did not change. */
    const unchanged = async (fn: () => Promise<void>, id = txId) => {
      const before = await snapshot(id);
      assert.ok(before?.id, 'transaction readable before');
      await fn();
      assert.deepEqual(await snapshot(id), before);
    };

    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor('Vendor A');
      other = await t.newVendor('Vendor B');
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      productId = product.id;
      txId = await v.buy(productId, { email: 'buyer@example.com', payload: 'original' });
      const vaulted = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      vaultedId = await v.buy(vaulted.id, { email: 'vault@example.com' });
    });
    after(() => t.close());

    test('a missing Authorization header is 401 UNAUTHORIZED and changes nothing', async () => {
      await unchanged(async () => {
        assertError(await v.api(`/v1/transaction/${txId}`, { authorization: '' }), 401, 'UNAUTHORIZED');
        assertError(
          await v.api(`/v1/transaction/${txId}`, { authorization: '', body: { payload: 'changed' } }),
          401,
          'UNAUTHORIZED',
        );
        assertError(
          await v.api(`/v1/refund-transaction/${txId}`, { authorization: '', method: 'POST' }),
          401,
          'UNAUTHORIZED',
        );
      });
    });

    test('malformed Authorization headers (no colon, Bearer scheme, empty password, very long) are 401', async () => {
      const { login, password } = v.credentials.sandbox;
      const bad = [
        login + password,
        `Bearer ${login}:${password}`,
        'Bearer x',
        `${login}:`,
        `:${password}`,
        ':',
        `${login}:${password}${'x'.repeat(10_000)}`,
        'x'.repeat(12_000),
      ];
      await unchanged(async () => {
        for (const authorization of bad) {
          assertError(await v.api(`/v1/transaction/${txId}`, { authorization }), 401, 'UNAUTHORIZED');
          assertError(
            await v.api(`/v1/transaction/${txId}`, { authorization, body: { payload: 'changed' } }),
            401,
            'UNAUTHORIZED',
          );
        }
      });
    });

    test('an Authorization header or URL beyond the 16 KB header limit is 431 HEADERS_TOO_LARGE with {error, message}', async () => {
      const long = await raw(t.url, 'GET', `/sandbox/v1/transaction/${txId}`, {
        headers: { authorization: `${v.credentials.sandbox.authorization}${'x'.repeat(20_000)}` },
      });
      assertError(long, 431, 'HEADERS_TOO_LARGE');
      const url = await raw(t.url, 'POST', `/sandbox/v1/transaction/${'y'.repeat(20_000)}`, {
        headers: { authorization: v.credentials.sandbox.authorization, 'content-type': 'application/json' },
        body: '{"payload":"x"}',
      });
      assertError(url, 431, 'HEADERS_TOO_LARGE');
    });

    test('a sandbox credential at the production URL, and a production one at the sandbox URL, are 401', async () => {
      await unchanged(async () => {
        assertError(
          await v.api(`/v1/transaction/${txId}`, {
            environment: 'production',
            authorization: v.credentials.sandbox.authorization,
          }),
          401,
          'UNAUTHORIZED',
        );
        assertError(
          await v.api('/v1/generate-url-to-admin', {
            environment: 'sandbox',
            authorization: v.credentials.production.authorization,
          }),
          401,
          'UNAUTHORIZED',
        );
        assertError(
          await v.api(`/v1/transaction/${txId}`, {
            environment: 'sandbox',
            authorization: v.credentials.production.authorization,
            body: { payload: 'x' },
          }),
          401,
          'UNAUTHORIZED',
        );
      });
    });

    test("another vendor's transaction and product IDs are 404, never 403, and change nothing", async () => {
      await unchanged(async () => {
        assertError(await other.api(`/v1/transaction/${txId}`), 404, 'NOT_FOUND');
        assertError(await other.api(`/v1/transaction/${txId}`, { body: { payload: 'stolen' } }), 404, 'NOT_FOUND');
        assertError(await other.api(`/v1/refund-transaction/${txId}`, { method: 'POST' }), 404, 'NOT_FOUND');
        assertError(
          await other.api(`/v1/customize-product/${productId}`, { body: { prices: [{ currency: 'USD', value: 1 }] } }),
          404,
          'NOT_FOUND',
        );
        assertError(await other.api(`/v1/check-licence/${productId}/ABC`), 404, 'NOT_FOUND');
      });
    });

    test('unknown transaction and product IDs are 404 NOT_FOUND', async () => {
      assertError(await v.api('/v1/transaction/TC-TR_0000'), 404, 'NOT_FOUND');
      assertError(
        await v.api('/v1/transaction/TC-TR_0000', { body: { assignEmail: 'a@example.com' } }),
        404,
        'NOT_FOUND',
      );
      assertError(await v.api('/v1/cancel-subscription/TC-TR_0000', { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/pause-subscription/TC-TR_0000', { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/resume-subscription/TC-TR_0000', { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/update-quantity/TC-TR_0000', { body: { quantity: 2 } }), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/coupons/TC-CO_0000'), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/coupons/TC-CO_0000/revoke', { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/refund-transaction/TC-TR_0000', { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/changed-transactions/TC-TR_0000', { method: 'POST' }), 404, 'NOT_FOUND');
      assertError(
        await v.api('/v1/charge-vaulted/TC-TR_0000', { body: { prices: [{ currency: 'USD', value: 5 }] } }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await v.api('/v1/customize-product/TC-PR_0000', { body: { prices: [{ currency: 'USD', value: 5 }] } }),
        404,
        'NOT_FOUND',
      );
      assertError(await v.api('/v1/check-licence/TC-PR_0000/KEY'), 404, 'NOT_FOUND');
    });

    test('malformed e-mails are 400 INVALID_EMAIL in the listing, assignEmail and the management URL', async () => {
      for (const email of [
        'not-an-email',
        'a@b',
        '@example.com',
        'a b@example.com',
        'a@@example.com',
        `${'a'.repeat(250)}@example.com`,
      ]) {
        const encoded = encodeURIComponent(email);
        assertError(await v.api(`/v1/transactions/${encoded}`), 400, 'INVALID_EMAIL');
        assertError(await v.api(`/v1/generate-url-to-manage-transactions/${encoded}`), 400, 'INVALID_EMAIL');
        await unchanged(async () => {
          const res = await v.api(`/v1/transaction/${txId}`, { body: { assignEmail: email } });
          assert.equal(res.status, 400, res.text);
          assertError(res, 400);
        });
      }
    });

    test('a payload of 5000+ characters is 400 and leaves the payload unchanged; 4999 is accepted', async () => {
      await unchanged(async () => {
        for (const length of [5000, 5001, 100_000]) {
          assertError(
            await v.api(`/v1/transaction/${txId}`, { body: { payload: 'p'.repeat(length) } }),
            400,
            'PAYLOAD_TOO_LONG',
          );
        }
      });
      assert.equal((await snapshot()).payload, 'original');
      const ok = await v.api(`/v1/transaction/${txId}`, { body: { payload: 'q'.repeat(4999) } });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await snapshot()).payload, 'q'.repeat(4999));
    });

    test('customize-product refuses a 5000-character payload and accepts 4999', async () => {
      const prices = [{ currency: 'USD', value: 10 }];
      assertError(
        await v.api(`/v1/customize-product/${productId}`, { body: { prices, payload: 'p'.repeat(5000) } }),
        400,
        'PAYLOAD_TOO_LONG',
      );
      const ok = await v.api(`/v1/customize-product/${productId}`, { body: { prices, payload: 'p'.repeat(4999) } });
      assert.equal(ok.status, 200, ok.text);
      assert.match(ok.json.customizedProductId, /^PC_/);
    });

    test('customize-product and charge-vaulted without a USD price are 400 USD_PRICE_REQUIRED', async () => {
      const prices = [{ currency: 'EUR', value: 10 }];
      assertError(await v.api(`/v1/customize-product/${productId}`, { body: { prices } }), 400, 'USD_PRICE_REQUIRED');
      assertError(
        await v.api(`/v1/customize-product/${productId}`, { body: { prices: JSON.stringify(prices) } }),
        400,
        'USD_PRICE_REQUIRED',
      );
      await unchanged(async () => {
        assertError(await v.api(`/v1/charge-vaulted/${vaultedId}`, { body: { prices } }), 400, 'USD_PRICE_REQUIRED');
      }, vaultedId);
    });

    test('a body that is not JSON is 400 INVALID_JSON', async () => {
      await unchanged(async () => {
        for (const rawBody of [
          '{payload: "x"}',
          '{"payload":',
          'payload=x',
          "{'payload':'x'}",
          '{"__proto__":{"x":1}}',
        ]) {
          assertError(
            await v.api(`/v1/transaction/${txId}`, { rawBody, headers: { 'content-type': 'application/json' } }),
            400,
          );
        }
      });
    });

    test('a POST without the body it needs is 400 (assign e-mail, customize-product, charge-vaulted)', async () => {
      await unchanged(async () => {
        assertError(await v.api(`/v1/transaction/${txId}`, { method: 'POST' }), 400);
        assertError(
          await v.api(`/v1/transaction/${txId}`, {
            method: 'POST',
            rawBody: '',
            headers: { 'content-type': 'application/json' },
          }),
          400,
        );
      });
      assertError(await v.api(`/v1/customize-product/${productId}`, { method: 'POST' }), 400);
      await unchanged(async () => {
        assertError(await v.api(`/v1/charge-vaulted/${vaultedId}`, { method: 'POST' }), 400);
        assertError(
          await v.api(`/v1/charge-vaulted/${vaultedId}`, {
            method: 'POST',
            rawBody: ' ',
            headers: { 'content-type': 'application/json' },
          }),
          400,
        );
      }, vaultedId);
    });

    test('a body sent as text/plain or form data is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      await unchanged(async () => {
        const rawBody = JSON.stringify({ payload: 'changed' });
        assertError(
          await v.api(`/v1/transaction/${txId}`, { rawBody, headers: { 'content-type': 'text/plain' } }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
        assertError(
          await v.api(`/v1/transaction/${txId}`, {
            rawBody: 'payload=x',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
      });
    });

    test('a body over 1 MB is 413 BODY_TOO_LARGE', async () => {
      await unchanged(async () => {
        assertError(
          await v.api(`/v1/transaction/${txId}`, { body: { payload: 'x'.repeat(1024 * 1024 + 10) } }),
          413,
          'BODY_TOO_LARGE',
        );
      });
    });

    test('unknown routes are 404; a wrong method is 405 with an Allow header', async () => {
      assertError(await v.api('/v1/nothing-here'), 404, 'NOT_FOUND');
      assertError(await v.api('/v2/transaction/x'), 404, 'NOT_FOUND');
      assertError(await v.api('/v1/transactions'), 404, 'NOT_FOUND');
      const del = await v.api(`/v1/transaction/${txId}`, { method: 'DELETE' });
      assertError(del, 405, 'METHOD_NOT_ALLOWED');
      assert.deepEqual(del.headers.get('allow')?.split(', ').sort(), ['GET', 'POST']);
      const get = await v.api(`/v1/refund-transaction/${txId}`);
      assertError(get, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(get.headers.get('allow'), 'POST');
      const put = await v.api('/v1/changed-transactions', { method: 'PUT', body: {} });
      assertError(put, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(put.headers.get('allow'), 'GET');
    });

    test('both assignEmail and payload at once, or neither, is 400 and changes nothing', async () => {
      await unchanged(async () => {
        assertError(
          await v.api(`/v1/transaction/${txId}`, { body: { assignEmail: 'new@example.com', payload: 'new' } }),
          400,
          'INVALID_INPUT',
        );
        assertError(await v.api(`/v1/transaction/${txId}`, { body: {} }), 400, 'INVALID_INPUT');
      });
    });

    test('unknown body fields are 400 INVALID_INPUT', async () => {
      await unchanged(async () => {
        assertError(
          await v.api(`/v1/transaction/${txId}`, { body: { payload: 'x', admin: true } }),
          400,
          'INVALID_INPUT',
        );
        assertError(
          await v.api(`/v1/transaction/${txId}`, { body: { assignedEmail: 'x@example.com' } }),
          400,
          'INVALID_INPUT',
        );
      });
      assertError(
        await v.api(`/v1/customize-product/${productId}`, {
          body: { prices: [{ currency: 'USD', value: 1 }], price: 1 },
        }),
        400,
        'INVALID_INPUT',
      );
      assertError(
        await v.api(`/v1/charge-vaulted/${vaultedId}`, {
          body: { prices: [{ currency: 'USD', value: 1 }], amount: 1 },
        }),
        400,
        'INVALID_INPUT',
      );
    });

    test('prices as a string holding the serialized array are accepted', async () => {
      const res = await v.api(`/v1/customize-product/${productId}`, {
        body: {
          prices: JSON.stringify([
            { currency: 'USD', value: 12.5 },
            { currency: 'eur', value: '11.00' },
          ]),
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.customizedProductId, /^PC_/);
    });

    test('prices with too many decimals, negative, non-numeric, unknown or duplicate currency are 400', async () => {
      const cases: unknown[][] = [
        [{ currency: 'USD', value: 1.005 }],
        [
          { currency: 'USD', value: 10 },
          { currency: 'JPY', value: 100.5 },
        ],
        [{ currency: 'USD', value: -1 }],
        [{ currency: 'USD', value: '-0.01' }],
        [{ currency: 'USD', value: 'ten' }],
        [{ currency: 'USD', value: '1e3' }],
        [{ currency: 'USD', value: true }],
        [
          { currency: 'USD', value: 10 },
          { currency: 'XYZ', value: 10 },
        ],
        [
          { currency: 'USD', value: 10 },
          { currency: 'usd', value: 10 },
        ],
        [],
      ];
      for (const prices of cases) {
        for (const form of [prices, JSON.stringify(prices)]) {
          assertError(await v.api(`/v1/customize-product/${productId}`, { body: { prices: form } }), 400);
          await unchanged(
            async () => assertError(await v.api(`/v1/charge-vaulted/${vaultedId}`, { body: { prices: form } }), 400),
            vaultedId,
          );
        }
      }
    });

    test('changed-transactions ?limit=0, ?limit=abc, ?limit=10001 are 400 INVALID_INPUT', async () => {
      for (const limit of ['0', 'abc', '10001', '-1', '1.5', '']) {
        assertError(await v.api(`/v1/changed-transactions?limit=${limit}`), 400, 'INVALID_INPUT');
      }
      assertError(await v.api('/v1/changed-transactions?limit=1&limit=2'), 400, 'INVALID_INPUT');
      const ok = await v.api('/v1/changed-transactions?limit=10000');
      assert.equal(ok.status, 200, ok.text);
    });

    test('a NUL character (U+0000) in a path, query or body is 400 INVALID_INPUT and charges or changes nothing', async () => {
      assertError(await v.api('/v1/transaction/TC-TR_%00'), 400, 'INVALID_INPUT');
      assertError(await v.api('/v1/transactions/a%00b%40example.com'), 400, 'INVALID_INPUT');
      assertError(await v.api('/v1/changed-transactions?limit=1%00'), 400, 'INVALID_INPUT');
      await unchanged(async () => {
        assertError(
          await v.api(`/v1/transaction/${txId}`, { body: { payload: 'nul\u0000byte' } }),
          400,
          'INVALID_INPUT',
        );
        assertError(
          await v.api(`/v1/transaction/${txId}`, { body: { assignEmail: 'a\u0000b@example.com' } }),
          400,
          'INVALID_INPUT',
        );
      });
      await unchanged(async () => {
        const res = await v.api(`/v1/charge-vaulted/${vaultedId}`, {
          body: { prices: [{ currency: 'USD', value: 5 }], chargeDescription: 'invoice\u0000text' },
        });
        assertError(res, 400, 'INVALID_INPUT');
      }, vaultedId);
      assertError(
        await v.api(`/v1/customize-product/${productId}`, {
          body: { prices: [{ currency: 'USD', value: 5 }], description: '\u0000' },
        }),
        400,
        'INVALID_INPUT',
      );
    });

    test('no hostile path, query or body makes any of the 13 endpoints answer 500', async () => {
      const auth = { authorization: v.credentials.sandbox.authorization };
      const segments = [
        '%00',
        'a%00b',
        '%ZZ',
        '%',
        '%E0%A4%A',
        '%ED%A0%80',
        '%C0%AF',
        '%FF',
        '..',
        '%2e%2e',
        '.',
        '',
        '%20',
        '%0A',
        '%2F',
        'x'.repeat(999),
        'x'.repeat(1001),
        'x'.repeat(6000),
        encodeURIComponent('ünïcødé 💩 \u202e'),
        encodeURIComponent("' OR '1'='1"),
        encodeURIComponent('"; drop table transactions; --'),
        encodeURIComponent('a\u0000@example.com'),
        encodeURIComponent('<script>alert(1)</script>'),
        `TC-TR_${'A'.repeat(60)}`,
      ];
      const endpoints: Array<{ method: string; path: (s: string) => string; body?: boolean }> = [
        { method: 'GET', path: (s) => `/sandbox/v1/generate-url-to-manage-transactions/${s}` },
        { method: 'GET', path: (s) => `/sandbox/v1/generate-url-to-admin${s ? `/${s}` : ''}` },
        { method: 'GET', path: (s) => `/sandbox/v1/transactions/${s}` },
        { method: 'GET', path: (s) => `/sandbox/v1/transaction/${s}` },
        { method: 'POST', path: (s) => `/sandbox/v1/transaction/${s}`, body: true }, // assign e-mail and update payload
        { method: 'POST', path: (s) => `/sandbox/v1/cancel-subscription/${s}` },
        { method: 'POST', path: (s) => `/sandbox/v1/pause-subscription/${s}`, body: true },
        { method: 'POST', path: (s) => `/sandbox/v1/resume-subscription/${s}` },
        { method: 'POST', path: (s) => `/sandbox/v1/update-quantity/${s}`, body: true },
        { method: 'POST', path: (s) => `/sandbox/v1/refund-transaction/${s}` },
        { method: 'GET', path: (s) => `/sandbox/v1/changed-transactions?limit=${s}` },
        { method: 'POST', path: (s) => `/sandbox/v1/changed-transactions/${s}` },
        { method: 'POST', path: (s) => `/sandbox/v1/customize-product/${s}`, body: true },
        { method: 'POST', path: (s) => `/sandbox/v1/charge-vaulted/${s}`, body: true },
        { method: 'GET', path: (s) => `/sandbox/v1/check-licence/${s}/KEY` },
        { method: 'GET', path: (s) => `/sandbox/v1/check-licence/${productId}/${s}` },
        { method: 'GET', path: (s) => `/sandbox/v1/licences/${s}` },
        { method: 'POST', path: (s) => `/sandbox/v1/licences/${s}/activate`, body: true },
        { method: 'POST', path: (s) => `/sandbox/v1/licences/${s}/deactivate`, body: true },
        { method: 'GET', path: (s) => `/sandbox/v1/coupons/${s}` },
        { method: 'POST', path: (s) => `/sandbox/v1/coupons/${s}/revoke` },
        { method: 'POST', path: (s) => `/sandbox/v1/coupons${s ? `?${s}` : ''}`, body: true },
      ];
      const prices = '[{"currency":"USD","value":5}]';
      const bodies = [
        '[]',
        '[1,2]',
        '0',
        '123',
        'null',
        'true',
        '"string"',
        '{}',
        '1e999',
        '['.repeat(50_000) + ']'.repeat(50_000),
        '{"constructor":{"prototype":{"x":1}}}',
        '{"a":{"b":{"c":{"d":[{"e":null}]}}}}',
        '{"assignEmail":5}',
        '{"assignEmail":null}',
        '{"assignEmail":["a@example.com"]}',
        '{"assignEmail":{"x":1}}',
        '{"assignEmail":"a\\u0000b@example.com"}',
        '{"assignEmail":"\\ud800@example.com"}',
        '{"payload":5}',
        '{"payload":{"a":1}}',
        '{"payload":["x"]}',
        '{"payload":true}',
        '{"payload":"nul\\u0000byte"}',
        '{"payload":"\\ud800\\udfff\\ud800"}',
        '{"prices":5}',
        '{"prices":null}',
        '{"prices":{}}',
        '{"prices":"5"}',
        '{"prices":"null"}',
        '{"prices":"[1,2]"}',
        '{"prices":"[[[]]]"}',
        '{"prices":[1]}',
        '{"prices":[null]}',
        '{"prices":[[]]}',
        '{"prices":[{"currency":5,"value":1}]}',
        '{"prices":[{"currency":"USD","value":1e308}]}',
        '{"prices":[{"currency":"USD","value":1e-300}]}',
        '{"prices":[{"currency":"USD","value":"99999999999999999999999"}]}',
        '{"prices":"[{\\"currency\\":\\"USD\\",\\"value\\":{}}]"}',
        '{"prices":"[{\\"currency\\":null,\\"value\\":1}]"}',
        '{"prices":"[{\\"currency\\":\\"__proto__\\",\\"value\\":1}]"}',
        '{"prices":"{\\"__proto__\\":1}"}',
        '{"prices":"[{\\"currency\\":\\"USD\\",\\"value\\":1,\\"currency\\":\\"constructor\\"}]"}',
        '{"prices":[{"currency":"toString","value":1}]}',
        `{"prices":${prices},"expiresIn":"5"}`,
        `{"prices":${prices},"expiresIn":-1}`,
        `{"prices":${prices},"expiresIn":1e308}`,
        `{"prices":${prices},"expiresIn":null}`,
        `{"prices":${prices},"transactionIdToMigrate":"x\\u0000"}`,
        `{"prices":${prices},"transactionIdToMigrate":5}`,
        `{"prices":${prices},"userMail":5}`,
        `{"prices":${prices},"userMail":"x"}`,
        `{"prices":${prices},"description":null}`,
        `{"prices":${prices},"chargeDescription":"\\u0000"}`,
        `{"prices":${prices},"description":"\\u0000"}`,
        `{"prices":${prices},"payload":"\\u0000"}`,
      ];
      const problems: string[] = [];
      const check = async (method: string, path: string, body?: string, contentType = 'application/json') => {
        let res;
        try {
          res = await raw(t.url, method, path, {
            headers: body === undefined ? auth : { ...auth, 'content-type': contentType },
            body,
          });
        } catch (err) {
          problems.push(`${method} ${path.slice(0, 120)} ${body?.slice(0, 80) ?? ''}: ${(err as Error).message}`);
          return;
        }
        const where = `${method} ${path.slice(0, 120)} ${body?.slice(0, 80) ?? ''} -> ${res.status}`;
        if (res.status >= 500) problems.push(`${where}: ${res.text.slice(0, 200)}`);
        else if (res.status >= 300) {
          const problem = errorBodyProblem(res.text);
          if (problem) problems.push(`${where}: ${problem}`);
        }
      };
      for (const endpoint of endpoints) {
        for (const segment of segments)
          await check(endpoint.method, endpoint.path(segment), endpoint.body ? '{}' : undefined);
        for (const method of ['PUT', 'DELETE', 'PATCH']) await check(method, endpoint.path('x'));
      }
      // Real IDs, so the hostile bodies reach the domain code.
      const targets = [
        `/sandbox/v1/transaction/${txId}`,
        `/sandbox/v1/customize-product/${productId}`,
        `/sandbox/v1/charge-vaulted/${vaultedId}`,
        `/sandbox/v1/update-quantity/${txId}`,
      ];
      for (const path of targets) {
        for (const body of bodies) await check('POST', path, body);
        await check('POST', path, '{"payload":"x"}', 'text/plain');
        await check('POST', path, '{"payload":"x"}', 'application/json; charset=latin1');
        await check('POST', path, '\u00ff\u00fe{', 'application/json');
      }
      // A real licence key, so hostile bodies reach its activations; none of them takes a slot.
      const licensed = await v.product({
        type: 'ONETIME',
        issuesLicences: true,
        activationLimit: 2,
        prices: [{ currency: 'USD', value: 9 }],
      });
      const key = (await t.services.store.licences.keyOf(v.scope(), await v.buy(licensed.id)))!;
      const licenceBodies = [
        '{"instanceName":5}',
        '{"instanceName":"\\u0000"}',
        '{"instanceName":"   "}',
        '{"instanceId":null}',
        '{"instanceId":"x","more":1}',
      ];
      for (const path of [`/sandbox/v1/licences/${key}/activate`, `/sandbox/v1/licences/${key}/deactivate`])
        for (const body of [...bodies, ...licenceBodies]) await check('POST', path, body);
      assert.equal((await v.api(`/v1/licences/${key}`)).json.activationsUsed, 0);
      for (const path of [
        `/sandbox/v1/cancel-subscription/${vaultedId}`,
        `/sandbox/v1/pause-subscription/${vaultedId}`,
        `/sandbox/v1/resume-subscription/${vaultedId}`,
        `/sandbox/v1/refund-transaction/${txId}`,
        `/sandbox/v1/changed-transactions/${txId}`,
      ]) {
        for (const body of bodies.slice(0, 12)) await check('POST', path, body);
      }
      assert.deepEqual(problems, []);
    });
  });
}
