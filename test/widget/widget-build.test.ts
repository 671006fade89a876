import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import vm from 'node:vm';
import { request as httpRequest } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { acceptsGzip, registerWidgetRoutes } from '../../src/http/widget-routes.ts';
import {
  buildWidgets,
  WIDGET_FILES,
  WIDGET_GZIP_BUDGET,
  widgetBuildOptions,
  type WidgetBundles,
} from '../../src/widget/build.ts';

/**
 * The client script as the server builds and serves it. What it does in a real page is tested in
 * Chromium; here it runs in a bare page (no elements) to show which API each build calls.
 */
const PROD = WIDGET_FILES.production;
const SANDBOX = WIDGET_FILES.sandbox;
const PRICE = {
  productId: 'prod_1',
  currency: 'EUR',
  price: 11.9,
  priceNet: 10,
  tax: 1.9,
  taxName: 'VAT',
  taxRate: 0.19,
  priceS: '11.90',
  priceNetS: '10.00',
  taxS: '1.90',
  country: 'DE',
};

interface Call {
  url: string;
  method: string;
  body: unknown;
}

/** Runs a bundle in a page with no elements whose script tag has `src` (and data-ts-country="DE"). */
function loadScript(code: Buffer, src: string, answer: () => Response) {
  const calls: Call[] = [];
  const noop = () => {};
  const page: Record<string, unknown> = {
    document: {
      currentScript: { src, getAttribute: (name: string) => (name === 'data-ts-country' ? 'DE' : null) },
      documentElement: { hasAttribute: () => false, querySelectorAll: () => [], style: {} },
      querySelector: () => null,
      addEventListener: noop,
    },
    MutationObserver: class {
      observe() {}
    },
    URL,
    URLSearchParams,
    console,
    location: { href: 'https://vendor.example/shop/', origin: 'https://vendor.example' },
    fetch: async (url: string, init?: RequestInit) => {
      calls.push({ url, method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined });
      return answer();
    },
  };
  page.window = page;
  vm.runInNewContext(code.toString('utf8'), page);
  const tc = page.tc as { getPrice(id: string): Promise<object>; buy(id: string, options?: object): Promise<void> };
  return { tc, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const notFound = () => json(404, { error: 'NOT_FOUND', message: 'Product prod_missing was not found.' });
/** Errors come from the script's own realm, so `instanceof Error` cannot tell. */
const errorWithMessage = (message: string) => (error: unknown) =>
  Object.prototype.toString.call(error) === '[object Error]' && (error as Error).message === message;

describe('client script bundles', () => {
  let bundles: WidgetBundles;
  before(async () => {
    bundles = await buildWidgets();
  });

  test('both bundles exist, each within its gzip budget, which never rises above the 3,179 bytes production had before its events', () => {
    assert.deepEqual(Object.keys(bundles).sort(), [PROD, SANDBOX].sort());
    assert.ok(WIDGET_GZIP_BUDGET.production <= 3179 && WIDGET_GZIP_BUDGET.sandbox <= 3278);
    for (const environment of ['production', 'sandbox'] as const) {
      const file = WIDGET_FILES[environment];
      const bundle = bundles[file]!;
      assert.equal(bundle.gzip.length, gzipSync(bundle.code).length, file);
      assert.ok(
        bundle.gzip.length <= WIDGET_GZIP_BUDGET[environment],
        `${file} is ${bundle.gzip.length} bytes gzipped, over its ${WIDGET_GZIP_BUDGET[environment]}`,
      );
      assert.match(bundle.etag, /^"[A-Za-z0-9_-]{43}"$/, 'a strong, quoted sha256 validator');
    }
    assert.notEqual(bundles[PROD]!.etag, bundles[SANDBOX]!.etag);
  });

  test('the two builds share every option except the environment', () => {
    const { define: prodDefine, ...prod } = widgetBuildOptions('production');
    const { define: sandboxDefine, ...sandbox } = widgetBuildOptions('sandbox');
    assert.deepEqual(prod, sandbox);
    assert.deepEqual(prodDefine, { __OPENTILL_SANDBOX__: 'false' });
    assert.deepEqual(sandboxDefine, { __OPENTILL_SANDBOX__: 'true' });
  });

  test('the production bundle carries no sandbox-only code', () => {
    const code = bundles[PROD]!.code.toString('utf8');
    assert.doesNotMatch(code, /sandbox|country/i);
    assert.match(bundles[SANDBOX]!.code.toString('utf8'), /\/sandbox\/public\/v1/);
  });

  test('production getPrice calls {origin}/public/v1 and resolves to exactly the six price fields', async () => {
    const { tc, calls } = loadScript(bundles[PROD]!.code, 'https://pay.example/latest/widget.min.js', () =>
      json(200, PRICE),
    );
    const price = await tc.getPrice('prod_1');
    assert.deepEqual(
      { ...price },
      { currency: 'EUR', price: 11.9, priceNet: 10, tax: 1.9, taxName: 'VAT', taxRate: 0.19 },
    );
    assert.deepEqual(
      calls,
      [{ url: 'https://pay.example/public/v1/price/prod_1', method: 'GET', body: undefined }],
      'the script tag country is ignored in production',
    );
  });

  test('sandbox getPrice calls {origin}/sandbox/public/v1 with the script tag country', async () => {
    const { tc, calls } = loadScript(bundles[SANDBOX]!.code, 'https://pay.example/latest/widget.sandbox.min.js', () =>
      json(200, PRICE),
    );
    assert.equal(((await tc.getPrice('prod_1')) as { price: number }).price, 11.9);
    assert.deepEqual(
      calls.map((c) => c.url),
      ['https://pay.example/sandbox/public/v1/price/prod_1?country=DE'],
    );
  });

  test('a server mounted under a path prefix is called under that prefix', async () => {
    const { tc, calls } = loadScript(bundles[PROD]!.code, 'https://example.com/till/latest/widget.min.js?v=2', () =>
      json(200, PRICE),
    );
    await tc.getPrice('prod 1');
    assert.deepEqual(
      calls.map((c) => c.url),
      ['https://example.com/till/public/v1/price/prod%201'],
    );
  });

  test('concurrent getPrice calls for one product make one request', async () => {
    const { tc, calls } = loadScript(bundles[PROD]!.code, 'https://pay.example/latest/widget.min.js', () =>
      json(200, PRICE),
    );
    await Promise.all([tc.getPrice('prod_1'), tc.getPrice('prod_1'), tc.getPrice('prod_1')]);
    assert.equal(calls.length, 1);
  });

  test('getPrice of an unknown product rejects with the server message, and a later call asks again', async () => {
    const { tc, calls } = loadScript(bundles[PROD]!.code, 'https://pay.example/latest/widget.min.js', notFound);
    await assert.rejects(tc.getPrice('prod_missing'), errorWithMessage('Product prod_missing was not found.'));
    await assert.rejects(tc.getPrice('prod_missing'), errorWithMessage('Product prod_missing was not found.'));
    assert.equal(calls.length, 2);
    await assert.rejects(tc.getPrice(''), errorWithMessage('opentill: a product ID is required.'));
  });

  test('buy posts the prefill without empty fields and rejects with the server message', async () => {
    for (const [file, api, country] of [
      [PROD, 'https://pay.example/public/v1', {}],
      [SANDBOX, 'https://pay.example/sandbox/public/v1', { country: 'DE' }],
    ] as const) {
      const { tc, calls } = loadScript(bundles[file]!.code, `https://pay.example/latest/${file}`, notFound);
      await assert.rejects(
        tc.buy('prod_missing', {
          firstName: 'Ada',
          email: '',
          zipCode: '10115',
          nonEditableEmail: true,
          redirect: false,
        }),
        errorWithMessage('Product prod_missing was not found.'),
      );
      assert.deepEqual(calls, [
        {
          url: `${api}/checkout`,
          method: 'POST',
          body: { productId: 'prod_missing', firstName: 'Ada', zipCode: '10115', nonEditableEmail: true, ...country },
        },
      ]);
    }
  });
});

test('buy refuses a success URL that is not http(s) before it asks the server anything', async () => {
  const bundles = await buildWidgets();
  for (const file of [PROD, SANDBOX]) {
    const { tc, calls } = loadScript(bundles[file]!.code, `https://pay.example/latest/${file}`, notFound);
    for (const successUrl of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,hi',
      'ftp://vendor.example/',
    ])
      await assert.rejects(
        tc.buy('prod_1', { successUrl }),
        errorWithMessage('opentill: successUrl is not an http(s) URL.'),
        `${file}: ${successUrl}`,
      );
    assert.deepEqual(calls, [], 'nothing asked, nothing opened');
  }
});

describe('client script routes', () => {
  let app: FastifyInstance;
  let base: string;
  let bundles: WidgetBundles;
  before(async () => {
    bundles = await buildWidgets();
    app = Fastify({ logger: false });
    await registerWidgetRoutes(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(() => app.close());

  /** The answer as it comes over the wire (fetch would decode it): status, headers and the bytes as sent. */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
      (resolve, reject) => {
        const req = httpRequest(`${base}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end();
      },
    );

  for (const file of [PROD, SANDBOX]) {
    test(`GET /latest/${file} serves the bundle as cacheable JavaScript for any origin, as it is without gzip`, async () => {
      for (const acceptEncoding of [undefined, 'identity', 'gzip;q=0, *', 'br, deflate']) {
        const res = await raw(`/latest/${file}`, {
          origin: 'https://vendor.example',
          ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-type'], 'application/javascript; charset=utf-8');
        assert.equal(res.headers['cache-control'], 'public, max-age=86400, stale-while-revalidate=604800');
        assert.equal(res.headers['access-control-allow-origin'], '*');
        assert.equal(res.headers['vary'], 'accept-encoding');
        assert.equal(res.headers['content-encoding'], undefined, String(acceptEncoding));
        assert.equal(res.headers['etag'], bundles[file]!.etag);
        assert.deepEqual(res.body, bundles[file]!.code);
      }
    });

    test(`GET /latest/${file} sends the gzipped copy, with its own ETag, to a browser that accepts gzip`, async () => {
      for (const acceptEncoding of ['gzip, deflate, br, zstd', 'GZIP', '*', 'x-gzip;q=0.5']) {
        const res = await raw(`/latest/${file}`, { 'accept-encoding': acceptEncoding });
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-encoding'], 'gzip', acceptEncoding);
        assert.equal(res.headers['vary'], 'accept-encoding');
        assert.equal(res.headers['etag'], bundles[file]!.gzipEtag);
        assert.notEqual(bundles[file]!.gzipEtag, bundles[file]!.etag);
        assert.equal(res.body.length, bundles[file]!.gzip.length, 'the size the budget is held to');
        assert.deepEqual(gunzipSync(res.body), bundles[file]!.code);
      }
      // As a browser's fetch reads it: decoded, the bundle itself.
      const decoded = await fetch(`${base}/latest/${file}`);
      assert.deepEqual(Buffer.from(await decoded.arrayBuffer()), bundles[file]!.code);
    });

    test(`GET /latest/${file} answers 304 when If-None-Match holds the ETag of the copy it would send`, async () => {
      for (const [acceptEncoding, etag] of [
        ['identity', bundles[file]!.etag],
        ['gzip', bundles[file]!.gzipEtag],
      ] as const) {
        for (const ifNoneMatch of [etag, `"other", W/${etag}`, '*']) {
          const res = await raw(`/latest/${file}`, { 'accept-encoding': acceptEncoding, 'if-none-match': ifNoneMatch });
          assert.equal(res.status, 304, `${acceptEncoding} ${ifNoneMatch}`);
          assert.equal(res.headers['etag'], etag);
          assert.equal(res.headers['cache-control'], 'public, max-age=86400, stale-while-revalidate=604800');
          assert.equal(res.body.length, 0);
        }
      }
      // The other copy's tag, or an older version's: the whole answer.
      for (const [acceptEncoding, ifNoneMatch] of [
        ['identity', bundles[file]!.gzipEtag],
        ['gzip', bundles[file]!.etag],
        ['gzip', '"an-older-version"'],
      ] as const) {
        const res = await raw(`/latest/${file}`, { 'accept-encoding': acceptEncoding, 'if-none-match': ifNoneMatch });
        assert.equal(res.status, 200, `${acceptEncoding} ${ifNoneMatch}`);
      }
    });
  }

  test('Accept-Encoding: gzip taken by name or by *, with a q above 0; refused by name whatever * says', () => {
    for (const header of ['gzip', 'deflate, gzip', 'gzip;q=1.0', 'gzip; q=0.001', '*', 'x-gzip', 'br;q=1, *;q=0.1'])
      assert.equal(acceptsGzip(header), true, header);
    for (const header of [undefined, '', 'identity', 'br', 'gzip;q=0', 'gzip;q=0, *', '*;q=0', 'gzip;q=0.000', 'gzipx'])
      assert.equal(acceptsGzip(header), false, String(header));
  });
});
