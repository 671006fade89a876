import type { Environment, Product } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { ENVIRONMENT_PREFIXES } from '../../http-app.ts';

/** Where a product's image is, on the host of the pages that show it (the checkout, the panel). */
export function productImagePath(environment: Environment, productId: string, version: string): string {
  const prefix = ENVIRONMENT_PREFIXES.find(([e]) => e === environment)![1];
  return `${prefix}/payment/product/${encodeURIComponent(productId)}/image/${encodeURIComponent(version)}`;
}

/** The heading's look: the image beside the name at any width, the description's own line breaks kept. */
export const PRODUCT_HEADING_STYLE =
  '.product-head{display:flex;gap:.9rem;align-items:flex-start}.product-head>div{min-width:0;flex:1}' +
  '.product-head img{flex:0 0 auto;width:4.5rem;height:4.5rem;object-fit:contain;border-radius:.5rem;border:1px solid var(--line);background:#fff}' +
  '.product-description{white-space:pre-line;overflow-wrap:anywhere}';

/**
 * What the checkout sells, at its top (docs/decisions.md §42): the name, the vendor's description as
 * plain text (escaped like every value; its line breaks shown, not read as markup), and the product's
 * image beside them, described by the product's name. Name and description are the vendor's words in
 * the vendor's language: isolated (bdi), so on a right-to-left page an English sentence keeps its full
 * stop at its end and "C++" stays "C++", while they stand on the page's side.
 */
export function productHeading(environment: Environment, product: Product): Html {
  const image = product.imageVersion
    ? html`<img src="${productImagePath(environment, product.id, product.imageVersion)}" alt="${product.name}" data-testid="product-image">`
    : html``;
  return html`<div class="product-head">${image}<div><h1><bdi>${product.name}</bdi></h1>
  ${product.description ? html`<p class="muted product-description" data-testid="product-description"><bdi>${product.description}</bdi></p>` : ''}</div></div>`;
}
