import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import type * as Client from '../../packages/client/src/index.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The SDK where a Cloudflare Worker or Vercel Edge function runs it: bundled, in a context holding
 * only the web platform's globals (fetch, Web Crypto, URL, timers, TextEncoder), none of Node's
 * (process, Buffer, require, node:crypto), calling a running opentill: a read, a refund with its
 * Idempotency-Key made by Web Crypto, and the change feed.
 */
const WEB_GLOBALS = {
  fetch,
  Headers,
  Request,
  Response,
  URL,
  URLSearchParams,
  AbortController,
  AbortSignal,
  TextEncoder,
  TextDecoder,
  atob,
  btoa,
  crypto: globalThis.crypto,
  setTimeout,
  clearTimeout,
  console,
};

let sdk: typeof Client;
before(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url))],
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'iife',
    globalName: 'OpenTillClient',
    logLevel: 'silent',
  });
  const edge = vm.createContext({ ...WEB_GLOBALS });
  vm.runInContext(bundle.outputFiles[0]!.text, edge);
  assert.equal(vm.runInContext('typeof process + typeof Buffer + typeof require', edge), 'undefinedundefinedundefined');
  sdk = vm.runInContext('OpenTillClient', edge) as typeof Client;
});

for (const kind of await storeKinds()) {
  describe(`the SDK on an edge runtime against opentill (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor();
    });
    after(() => t.close());

    test('reads, refunds with an Idempotency-Key of its own, and walks the change feed', async () => {
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
      const id = await v.buy(product.id, { email: 'edge@example.com' });
      const client = new sdk.OpenTill({ baseUrl: `${t.url}/sandbox`, credential: v.credentials.sandbox.authorization });
      const [listed] = await client.listTransactionsByEmail('edge@example.com');
      assert.equal(listed!.id, id);
      const refund = await client.refundTransaction(id, { amount: 5 });
      assert.equal(refund.status, 'REFUNDED');
      assert.match(refund.idempotencyKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
      const seen: string[] = [];
      for await (const change of client.changes()) seen.push(`${change.changeStatus} ${change.id}`);
      assert.deepEqual(seen, [`CHANGED_STATUS_REFUNDED ${id}`]);
      const missing = await client.readTransaction('TC-TR_none').catch((e: unknown) => e);
      assert.ok(missing instanceof sdk.NotFoundError, "the error classes are the bundle's own");
      assert.equal((missing as Client.OpenTillError).status, 404);
    });
  });
}
