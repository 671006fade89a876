import type { Mutant } from './mutant.ts';

const FORM = 'test/api/panel-product-form.test.ts';
const ARCHIVE = 'test/api/panel-product-archive.test.ts';

/** Mutants of the panel's product form: its image, description and archive (issue 37, docs/decisions.md §42). */
export const productFormMutants: Mutant[] = [
  {
    id: 'pf-image-onto-another-vendors-product',
    file: 'src/store/product-images-store.ts',
    find: ".set({ image_version: image.version })\n        .where('id', '=', image.productId)\n        .$call(whereScope(scope))",
    replace: ".set({ image_version: image.version })\n        .where('id', '=', image.productId)",
    tests: [FORM],
  },
  {
    id: 'pf-image-served-in-another-environment',
    file: 'src/store/product-images-store.ts',
    find: ".where('environment', '=', environment)\n        .where('version', '=', version)",
    replace: ".where('version', '=', version)",
    tests: [FORM],
  },
  {
    id: 'pf-image-old-version-served',
    file: 'src/store/product-images-store.ts',
    find: ".where('environment', '=', environment)\n        .where('version', '=', version)",
    replace: ".where('environment', '=', environment)",
    tests: [FORM],
  },
  {
    id: 'pf-image-size-limit-off-by-one',
    file: 'src/domain/catalog/product-images.ts',
    find: 'if (bytes.length > PRODUCT_IMAGE_MAX_BYTES)',
    replace: 'if (bytes.length >= PRODUCT_IMAGE_MAX_BYTES)',
    tests: [FORM],
  },
  {
    id: 'pf-image-side-limit-off-by-one',
    file: 'src/domain/catalog/product-images.ts',
    find: 'width > PRODUCT_IMAGE_MAX_SIDE || height > PRODUCT_IMAGE_MAX_SIDE',
    replace: 'width >= PRODUCT_IMAGE_MAX_SIDE || height > PRODUCT_IMAGE_MAX_SIDE',
    tests: [FORM],
  },
  {
    id: 'pf-image-height-unchecked',
    file: 'src/domain/catalog/product-images.ts',
    find: 'width > PRODUCT_IMAGE_MAX_SIDE || height > PRODUCT_IMAGE_MAX_SIDE',
    replace: 'width > PRODUCT_IMAGE_MAX_SIDE',
    tests: [FORM],
  },
  {
    id: 'pf-image-sent-type-trusted',
    file: 'src/domain/catalog/product-images.ts',
    find: "if (!picture) throw invalidInput('A product image must be a PNG, JPEG or WebP image.');",
    replace: "picture ??= { contentType: 'image/png', width: 1, height: 1 };",
    tests: [FORM],
  },
  {
    id: 'pf-image-sniffable',
    file: 'src/http/pages/checkout/product-image.ts',
    find: ".header('x-content-type-options', 'nosniff')",
    replace: '',
    tests: [FORM],
  },
  {
    id: 'pf-image-may-run',
    file: 'src/http/pages/checkout/product-image.ts',
    find: ".header('content-security-policy', \"default-src 'none'; sandbox\")",
    replace: '',
    tests: [FORM],
  },
  {
    id: 'pf-image-upload-without-token',
    file: 'src/http/pages/panel/product-image-upload.ts',
    find: "if (typeof token !== 'string' || !same(token, session.csrfToken)) {",
    replace: 'if (false) {',
    tests: [FORM],
  },
  {
    id: 'pf-description-as-markup',
    file: 'src/http/pages/checkout/product-heading.ts',
    find: 'data-testid="product-description"><bdi>${product.description}</bdi></p>',
    replace:
      'data-testid="product-description"><bdi>${html(Object.assign([product.description], { raw: [product.description] }) as unknown as TemplateStringsArray)}</bdi></p>',
    tests: [FORM],
  },
  {
    id: 'pf-archive-without-confirmation',
    file: 'src/http/pages/panel/product-form-routes.ts',
    find: "if (form.confirm !== 'yes')",
    replace: 'if (false)',
    tests: [ARCHIVE],
  },
];
