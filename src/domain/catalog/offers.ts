import { AppError, notFound } from '../errors.ts';
import type { CustomizedProduct, Environment, Product, Scope } from '../model.ts';
import { reaches } from '../production-access.ts';
import type { CatalogDeps } from './catalog-deps.ts';

/** What a checkout sells: a product, with the customization it was bought through, if any. */
export interface Offer {
  product: Product;
  customized: CustomizedProduct | null;
}

/**
 * The scope of a product or customized product id, for public pages that carry no credential. A
 * production product of a vendor that does not reach production is not for sale: not found.
 */
export async function ownerOf(deps: CatalogDeps, productId: string, environment: Environment): Promise<Scope> {
  const vendorId = await deps.store.products.ownerOf(productId, environment);
  const vendor = vendorId && environment === 'production' ? await deps.store.vendors.find(vendorId) : undefined;
  if (!vendorId || (vendor && !reaches(vendor, environment))) throw notFound(`Product ${productId}`);
  return { vendorId, environment };
}

/**
 * What a checkout sells for a product or customized-product id: the base product with the
 * customization's prices and overrides. An expired customized product is LINK_EXPIRED.
 */
export async function resolveOffer(deps: CatalogDeps, scope: Scope, id: string): Promise<Offer> {
  if (id.startsWith('PC_')) {
    const customized = await deps.store.customizedProducts.find(scope, id);
    if (!customized) throw notFound(`Product ${id}`);
    if (customized.expiresAt && customized.expiresAt <= deps.clock.now(scope).toISOString()) {
      throw new AppError('LINK_EXPIRED', 'This payment link has expired. Ask the seller for a new one.');
    }
    const product = await deps.store.products.find(scope, customized.productId);
    if (!product) throw notFound(`Product ${id}`);
    return {
      product: {
        ...product,
        prices: customized.prices,
        description: customized.description ?? product.description,
      },
      customized,
    };
  }
  const product = await deps.store.products.find(scope, id);
  if (!product) throw notFound(`Product ${id}`);
  return { product, customized: null };
}
