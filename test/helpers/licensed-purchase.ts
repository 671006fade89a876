import assert from 'node:assert/strict';
import type { NewProduct } from '../../src/domain/catalog/catalog.ts';
import type { Environment } from '../../src/domain/model.ts';
import { TEST_CARD, type TestApp, type TestVendor } from './test-app.ts';

/**
 * A paid purchase of a new licensed product, bought through the domain to learn the key the checkout
 * shows the customer (docs/decisions.md §40).
 */
export async function licensedPurchase(
  t: TestApp,
  v: TestVendor,
  product: Partial<NewProduct> = {},
  options: { email?: string; environment?: Environment } = {},
) {
  const environment = options.environment ?? 'sandbox';
  const created = await v.product({ type: 'ONETIME', issuesLicences: true, ...product }, environment);
  const result = await t.services.purchases.purchase(v.scope(environment), {
    productId: created.id,
    email: options.email ?? 'licensee@example.com',
    country: 'US',
    card: TEST_CARD,
  });
  if (result.status !== 'PAID' || !result.licence) throw new Error(`not a licensed purchase: ${result.status}`);
  assert.ok(result.licence);
  return { product: created, transactionId: result.transaction.id, key: result.licence };
}
