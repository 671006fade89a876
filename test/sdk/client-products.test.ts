import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidRequestError, type OpenTill } from '../../packages/client/src/index.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { recordingFetch, sdkFor } from './sdk-world.ts';

/** The SDK's calls of opentill's own product API (/v1/products) against a running opentill. */
for (const kind of await storeKinds()) {
  describe(`the SDK's product calls against opentill (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let sdk: OpenTill;
    useTestApp(kind, {}, (app, vendor) => {
      t = app;
      v = vendor;
      sdk = sdkFor(t, v);
    });

    test('creates, reads, lists, changes, archives and unarchives a product', async () => {
      const created = await sdk.createProduct({
        name: 'Cloud Pro',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'YEARLY',
        trialDays: 14,
        prices: [
          { currency: 'USD', value: 120 },
          { currency: 'EUR', value: 110 },
        ],
      });
      assert.equal(created.type, 'SUBSCRIPTION');
      assert.equal(created.chargeFrequency, 'YEARLY');
      assert.deepEqual(
        created.prices.map((p) => `${p.currency} ${p.valueS}`),
        ['USD 120.00', 'EUR 110.00'],
      );
      assert.equal(created.raw.id, created.id);
      assert.equal((await sdk.readProduct(created.id)).name, 'Cloud Pro');
      const price = await sdk.getPublicPrice(created.id, { country: 'DE' });
      assert.deepEqual([price.currency, price.priceNetS, price.taxName], ['EUR', '110.00', 'VAT']);
      assert.equal((await sdk.getPublicPrice(created.id, { country: 'US' })).currency, 'USD');

      const changed = await sdk.updateProduct(created.id, { name: 'Cloud Pro 2', trialDays: 7 });
      assert.deepEqual([changed.name, changed.trialDays, changed.chargeFrequency], ['Cloud Pro 2', 7, 'YEARLY']);

      const archived = await sdk.archiveProduct(created.id);
      assert.equal(archived.archived, true);
      assert.deepEqual(
        (await sdk.listProducts({ archived: true })).map((p) => p.id),
        [created.id],
      );
      assert.deepEqual(await sdk.listProducts({ archived: false }), []);
      const refused = await sdk
        .customizeProduct(created.id, { prices: [{ currency: 'USD', value: 1 }] })
        .catch((e: unknown) => e);
      assert.ok(refused instanceof Error && 'status' in refused && (refused.status as number) >= 400, String(refused));
      assert.equal((await sdk.unarchiveProduct(created.id)).archived, false);
      assert.equal((await sdk.listProducts()).length, 1);
    });

    test('a create whose answer is lost is retried with its key and makes one product; a refused one is not retried', async () => {
      const other = await t.newVendor('Other');
      const { fetch, sent } = recordingFetch({ lose: (index) => index === 0 });
      const client = sdkFor(t, other, { fetch, retry: { baseDelayMs: 10 } });
      const product = await client.createProduct({
        name: 'Once',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 5 }],
      });
      assert.equal(sent.length, 2);
      assert.equal(sent[0]!.headers['idempotency-key'], sent[1]!.headers['idempotency-key']);
      assert.deepEqual(
        (await client.listProducts()).map((p) => p.id),
        [product.id],
      );
      const noUsd = await client
        .createProduct({ name: 'No USD', type: 'ONETIME', prices: [{ currency: 'EUR', value: 5 }] })
        .catch((e: unknown) => e);
      assert.ok(noUsd instanceof InvalidRequestError, String(noUsd));
      assert.equal(sent.length, 4, 'the refusal was sent once');
    });
  });
}
