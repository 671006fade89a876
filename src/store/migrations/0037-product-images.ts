import type { Kysely } from 'kysely';

// A product's image (docs/decisions.md §42): its bytes in `product_images`, one row per product, as
// base64 text so both stores keep them the same way (the vendor logo is text too). `products.image_version`
// names the image in use: the checkout reads it with the product, and the image's public URL carries it,
// so a new image has a new URL and the old one may be cached for good.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('product_images')
    .addColumn('product_id', 'text', (c) => c.primaryKey().references('products.id'))
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('bytes_base64', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('products').addColumn('image_version', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').dropColumn('image_version').execute();
  await db.schema.dropTable('product_images').execute();
}
