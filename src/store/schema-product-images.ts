// The product images' table of the schema (src/store/schema.ts, migration 0037), kept apart so that file stays within its size.

/** A product's image (migration 0037): one per product, its bytes as base64. */
export interface ProductImagesTable {
  product_id: string;
  vendor_id: string;
  environment: string;
  /** Sniffed from the bytes: image/png, image/jpeg or image/webp. */
  content_type: string;
  width: number;
  height: number;
  /** In the image's URL: the first 16 hex digits of the bytes' SHA-256. */
  version: string;
  bytes_base64: string;
  uploaded_at: string;
}

/** The products table's column naming the image in use (migration 0037); null: no image. */
export interface ProductImageColumns {
  image_version: string | null;
}
