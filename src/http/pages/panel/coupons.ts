import type { Coupon, Environment, Product } from '../../../domain/model.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { csrfField } from './panel-layout.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import { byCurrency } from './products.ts';

export function couponsContent(view: {
  environment: Environment;
  csrf: string;
  coupons: Coupon[];
  products: Product[];
  form?: FormBody | undefined;
  /** The vendor's locale (Accept-Language, else en-US), for amounts. */
  locale: string;
}): Html {
  const env = view.environment;
  const f = view.form;
  return html`${
    view.coupons.length
      ? html`<table class="list" aria-label="Coupons">${view.coupons.map((c) => {
          const product = view.products.find((p) => p.id === c.productId);
          const amounts = byCurrency(c.amountsOff).map(([currency, minor]) =>
            formatForBuyer(minor, currency, view.locale),
          );
          const off = c.percentOff !== null ? `${c.percentOff}% off` : `${amounts.join(', ')} off`;
          return html`<tr data-testid="coupon"><td><code>${c.code}</code> · ${product?.name ?? c.productId}<br><span class="muted">${off}${c.expiresAt ? `, until ${c.expiresAt.slice(0, 10)}` : ''}${c.revokedAt ? ', revoked' : ''}</span></td>
    <td>${c.revokedAt ? '' : html`<form method="post" action="/panel/coupons?env=${env}">${csrfField(view.csrf)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="id" value="${c.id}"><button type="submit" class="link">Revoke</button></form>`}</td></tr>`;
        })}</table>`
      : html`<p class="muted">No ${env} coupons yet.</p>`
  }
  ${
    view.products.length
      ? html`<details class="box"${f ? html` open` : ''}><summary>New coupon</summary><form method="post" action="/panel/coupons?env=${env}" class="narrow">${csrfField(view.csrf)}<input type="hidden" name="action" value="create">
    <label for="coupon-product">Product</label><select id="coupon-product" name="productId">${view.products.map((p) => html`<option value="${p.id}"${f?.productId === p.id ? html` selected` : ''}>${p.name}</option>`)}</select>
    <label for="coupon-code">Code</label><input id="coupon-code" name="code" required maxlength="32" placeholder="LAUNCH25" value="${f?.code ?? ''}">
    <label for="coupon-off">Discount: a percentage, or amounts off</label><input id="coupon-off" name="off" required placeholder="25% or USD 5, EUR 4.50" value="${f?.off ?? ''}">
    <label for="coupon-expires">Expires (optional)</label><input id="coupon-expires" name="expiresAt" type="date" value="${f?.expiresAt ?? ''}">
    <button type="submit">Create the coupon</button></form></details>`
      : html`<p class="muted">Create a product first: a coupon belongs to one product.</p>`
  }`;
}
