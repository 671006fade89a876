import { createHash } from 'node:crypto';
import { invalidInput, notFound } from '../errors.ts';
import type { Environment, Scope } from '../model.ts';
import type { ProductImage } from '../ports.ts';
import type { CatalogDeps } from './catalog-deps.ts';

/** The largest product image, in bytes: a photo for a checkout, not a print file (docs/decisions.md §42). */
export const PRODUCT_IMAGE_MAX_BYTES = 1024 * 1024;
/** The longest side, in pixels: more than any checkout shows, less than a decompression bomb. */
export const PRODUCT_IMAGE_MAX_SIDE = 4096;
export const PRODUCT_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

type Picture = Pick<ProductImage, 'contentType' | 'width' | 'height'>;

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));
const be16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const le24 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);

/** A PNG's size from its first chunk, which must be IHDR. */
function png(b: Uint8Array): Picture | undefined {
  if (b.length < 24 || !ascii(b, 12, 'IHDR')) return undefined;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return { contentType: 'image/png', width: view.getUint32(16), height: view.getUint32(20) };
}

/** A JPEG's size from its first start-of-frame segment (SOF0-SOF15 but DHT, JPG and DAC). */
function jpeg(b: Uint8Array): Picture | undefined {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return { contentType: 'image/jpeg', height: be16(b, at + 5), width: be16(b, at + 7) };
    if (marker === 0xd9 || marker === 0xda) return undefined;
    at += marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8) ? 2 : 2 + be16(b, at + 2);
  }
  return undefined;
}

/** A WebP's size from its first chunk: lossy (VP8), lossless (VP8L) or extended (VP8X). */
function webp(b: Uint8Array): Picture | undefined {
  const size = (width: number, height: number): Picture => ({ contentType: 'image/webp', width, height });
  if (b.length >= 30 && ascii(b, 12, 'VP8 ') && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a)
    return size(((b[27]! << 8) | b[26]!) & 0x3fff, ((b[29]! << 8) | b[28]!) & 0x3fff);
  if (b.length >= 25 && ascii(b, 12, 'VP8L') && b[20] === 0x2f)
    return size(
      1 + (((b[22]! & 0x3f) << 8) | b[21]!),
      1 + (((b[24]! & 0x0f) << 10) | (b[23]! << 2) | ((b[22]! & 0xc0) >> 6)),
    );
  if (b.length >= 30 && ascii(b, 12, 'VP8X')) return size(1 + le24(b, 24), 1 + le24(b, 27));
  return undefined;
}

/**
 * What an image is, read from its bytes (never from the type it was sent as or its name): a PNG,
 * JPEG or WebP whose header gives a size within bounds; anything else is refused.
 */
export function readPicture(bytes: Uint8Array): Picture {
  if (bytes.length === 0) throw invalidInput('The image file is empty.');
  if (bytes.length > PRODUCT_IMAGE_MAX_BYTES)
    throw invalidInput(`A product image can be at most 1 MB; this one is ${Math.ceil(bytes.length / 1024)} KB.`);
  let picture: Picture | undefined;
  if (bytes.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => bytes[i] === x))
    picture = png(bytes);
  else if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) picture = jpeg(bytes);
  else if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) picture = webp(bytes);
  if (!picture) throw invalidInput('A product image must be a PNG, JPEG or WebP image.');
  const { width, height } = picture;
  if (width < 1 || height < 1 || width > PRODUCT_IMAGE_MAX_SIDE || height > PRODUCT_IMAGE_MAX_SIDE)
    throw invalidInput(
      `A product image can be at most ${PRODUCT_IMAGE_MAX_SIDE} pixels wide and high; this one is ${width}×${height}.`,
    );
  return picture;
}

/**
 * Makes an image the product's, replacing any. Its version is the bytes' own hash, so sending the
 * same image again (a retry) changes nothing, and a new image gets a new public URL.
 */
export async function setProductImage(
  deps: CatalogDeps,
  scope: Scope,
  productId: string,
  bytes: Uint8Array,
): Promise<ProductImage> {
  const picture = readPicture(bytes);
  const image: ProductImage = {
    productId,
    ...picture,
    version: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
    bytes,
    uploadedAt: deps.clock.now().toISOString(),
  };
  const put = await deps.store.transaction((repos) => repos.productImages.put(scope, image));
  if (!put) throw notFound(`Product ${productId}`);
  return image;
}

/** Takes the product's image away (its old URL then answers 404); a product without one stays so. */
export async function removeProductImage(deps: CatalogDeps, scope: Scope, productId: string): Promise<void> {
  const removed = await deps.store.transaction((repos) => repos.productImages.remove(scope, productId));
  if (!removed) throw notFound(`Product ${productId}`);
}

/** The public image of a product of the environment at this version, or not found. */
export async function readProductImage(
  deps: CatalogDeps,
  environment: Environment,
  productId: string,
  version: string,
): Promise<ProductImage> {
  const image = await deps.store.productImages.find(environment, productId, version);
  if (!image) throw notFound(`The image of product ${productId}`);
  return image;
}
