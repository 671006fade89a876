import type { Environment, Scope } from '../model.ts';

/** A product's image as stored: its bytes and what was read from them (docs/decisions.md §42). */
export interface ProductImage {
  productId: string;
  contentType: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
  /** In the image's public URL; a new image has a new one. */
  version: string;
  bytes: Uint8Array;
  uploadedAt: string;
}

/** Products' images: one per product, named on the product by its version. */
export interface ProductImageRepository {
  /** Makes `image` the image of a product of the scope (replacing any); false when the scope has no such product. */
  put(scope: Scope, image: ProductImage): Promise<boolean>;
  /** Takes away the image of a product of the scope; false when the scope has no such product. */
  remove(scope: Scope, productId: string): Promise<boolean>;
  /** The image in use of a product of the environment at this version; undefined when it has none, or another. */
  find(environment: Environment, productId: string, version: string): Promise<ProductImage | undefined>;
}
