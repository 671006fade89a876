import type { Environment, Product } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { productImagePath } from './product-image.ts';

/** The heading's look: the image beside the name at any width, the description's own line breaks kept. */
export const PRODUCT_HEADING_STYLE =
  '.product-head{display:flex;gap:.9rem;align-items:flex-start}.product-head>div{min-width:0;flex:1}' +
  '.product-head img{flex:0 0 auto;width:4.5rem;height:4.5rem;object-fit:contain;border-radius:.5rem;border:1px solid var(--line);background:#fff}' +
  '.product-description{white-space:pre-line;overflow-wrap:anywhere}';

/**
 * What the checkout sells, at its top (docs/decisions.md §42): the name, the vendor's description as
 * plain text (escaped like every value; its line breaks shown, not read as markup), and the product's
 * image beside them, described by the product's name.
 */
export function productHeading(environment: Environment, product: Product): Html {
  const image = product.imageVersion
    ? html`<img src="${productImagePath(environment, product.id, product.imageVersion)}" alt="${product.name}" data-testid="product-image">`
    : html``;
  return html`<div class="product-head">${image}<div><h1>${product.name}</h1>
  ${product.description ? html`<p class="muted product-description" data-testid="product-description">${product.description}</p>` : ''}</div></div>`;
}
