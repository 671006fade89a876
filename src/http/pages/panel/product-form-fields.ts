import {
  PRODUCT_DESCRIPTION_MAX,
  PRODUCT_IMAGE_MAX_BYTES,
  PRODUCT_IMAGE_MAX_SIDE,
  PRODUCT_IMAGE_TYPES,
} from '../../../domain/catalog/index.ts';
import type { Environment, Product } from '../../../domain/model.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { productImagePath } from '../checkout/product-heading.ts';
import { csrfField, panelHref } from './panel-layout.ts';
import { LOGO_CSRF_HEADER } from './logo-upload.ts';
import { PRODUCT_IMAGE_UPLOAD_PATH } from './product-image-upload.ts';

// The product form's description, image and archive (docs/decisions.md §42), each its own piece of the form.

/** The description field of the new-product form (`p` undefined) or of a product's edit form. */
export function descriptionField(p: Product | undefined, typed: FormBody | undefined): Html {
  const id = p ? `description-${p.id}` : 'description';
  return html`<label for="${id}">Description (shown on the checkout under the name; optional)</label><textarea id="${id}" name="description" rows="3" maxlength="${String(PRODUCT_DESCRIPTION_MAX)}">${typed?.description ?? p?.description ?? ''}</textarea>`;
}

/**
 * The product's image: the one in use with a form to remove it, and the upload (by the page's script,
 * src/http/pages/browser/product-image-upload.ts, as the logo's; a page form takes 64 KB at most).
 */
export function productImageForm(p: Product, view: { environment: Environment; csrf: string }): Html {
  const env = view.environment;
  const types = PRODUCT_IMAGE_TYPES.join(',');
  const now = p.imageVersion
    ? html`<p>Image: <img class="product-image-now" src="${productImagePath(env, p.id, p.imageVersion)}" alt="${p.name}"></p>
    <form method="post" action="/panel/products/image/remove?env=${env}">${csrfField(view.csrf)}<input type="hidden" name="id" value="${p.id}"><button type="submit" class="outline">Remove the image</button></form>`
    : html``;
  return html`<details data-testid="product-image"><summary>Image${p.imageVersion ? '' : ' (none)'}</summary>${now}
  <div class="narrow" data-image-upload data-url="${`${PRODUCT_IMAGE_UPLOAD_PATH}?env=${env}&id=${encodeURIComponent(p.id)}`}" data-csrf="${view.csrf}" data-csrf-header="${LOGO_CSRF_HEADER}" data-types="${types}" data-max-bytes="${String(PRODUCT_IMAGE_MAX_BYTES)}" data-done="${panelHref('/panel/products', env, { done: 'product-image' })}" hidden>
    <label for="image-${p.id}">${p.imageVersion ? 'Replace the image' : 'Upload an image'} (PNG, JPEG or WebP, 1 MB and ${String(PRODUCT_IMAGE_MAX_SIDE)} pixels a side at most)</label>
    <input id="image-${p.id}" type="file" accept="${types}">
    <p data-image-message aria-live="polite" hidden></p>
  </div>
  <noscript><p class="muted">Uploading an image needs JavaScript here.</p></noscript></details>`;
}

/** Archive (no new sales; what was sold goes on) or put on sale again, each behind a box to tick. */
export function archiveForm(p: Product, view: { environment: Environment; csrf: string }): Html {
  const archived = p.archivedAt !== null;
  return html`<details data-testid="archive"><summary>${archived ? 'Sell again' : 'Archive'}</summary><form method="post" action="/panel/products/archive?env=${view.environment}" class="narrow">${csrfField(view.csrf)}<input type="hidden" name="id" value="${p.id}"><input type="hidden" name="action" value="${archived ? 'unarchive' : 'archive'}">
    <label class="check"><input type="checkbox" name="confirm" value="yes" required> ${
      archived
        ? html`Put ${p.name} on sale again: its payment links and checkout work again.`
        : html`Stop selling ${p.name}: its checkout and payment links refuse new purchases. Subscriptions already sold go on renewing; cancel those you want to end.`
    }</label>
    <button type="submit"${archived ? '' : html` class="secondary"`}>${archived ? 'Sell it again' : 'Archive the product'}</button></form></details>`;
}
