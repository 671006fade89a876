import type { Environment } from '../domain/model.ts';
import type { ProductImage, ProductImageRepository } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import { whereScope } from './scope.ts';

/**
 * Products' images (migration 0037). `put` names the version on the product first: that UPDATE is
 * scoped to the vendor and environment, so nobody writes an image onto another's product, and on
 * PostgreSQL it locks the product's row, so two uploads at once write one after the other.
 */
export function productImagesStore(db: Executor): ProductImageRepository {
  return {
    async put(scope, image) {
      const named = await db
        .updateTable('products')
        .set({ image_version: image.version })
        .where('id', '=', image.productId)
        .$call(whereScope(scope))
        .executeTakeFirst();
      if (Number(named.numUpdatedRows) !== 1) return false;
      const row = {
        content_type: image.contentType,
        width: image.width,
        height: image.height,
        version: image.version,
        bytes_base64: Buffer.from(image.bytes).toString('base64'),
        uploaded_at: image.uploadedAt,
      };
      await db
        .insertInto('product_images')
        .values({ product_id: image.productId, vendor_id: scope.vendorId, environment: scope.environment, ...row })
        .onConflict((c) => c.column('product_id').doUpdateSet(row))
        .execute();
      return true;
    },
    async remove(scope, productId) {
      const cleared = await db
        .updateTable('products')
        .set({ image_version: null })
        .where('id', '=', productId)
        .$call(whereScope(scope))
        .executeTakeFirst();
      if (Number(cleared.numUpdatedRows) !== 1) return false;
      await db.deleteFrom('product_images').where('product_id', '=', productId).$call(whereScope(scope)).execute();
      return true;
    },
    async find(environment: Environment, productId: string, version: string) {
      const row = await db
        .selectFrom('product_images')
        .selectAll()
        .where('product_id', '=', productId)
        .where('environment', '=', environment)
        .where('version', '=', version)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        productId: row.product_id,
        contentType: row.content_type as ProductImage['contentType'],
        width: Number(row.width),
        height: Number(row.height),
        version: row.version,
        bytes: Buffer.from(row.bytes_base64, 'base64'),
        uploadedAt: row.uploaded_at,
      };
    },
  };
}
