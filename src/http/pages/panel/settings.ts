import type { Environment, Vendor } from '../../../domain/model.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { LOGO_MAX_BYTES } from '../../../domain/catalog/index.ts';
import { LOGO_CSRF_HEADER, LOGO_TYPES, LOGO_UPLOAD_PATH } from './logo-upload.ts';
import { csrfField, panelHref } from './panel-layout.ts';

/**
 * The settings page; after a refused save, `form` holds what was typed so nothing is lost. The logo
 * upload's script (src/http/pages/browser/logo-upload.ts) reads where and how to send from #logo-upload.
 */
export function settingsContent(view: {
  environment: Environment;
  csrf: string;
  vendor: Vendor;
  form?: FormBody | undefined;
  /** SELLER_OF_RECORD=operator: the operator's identity is on the invoices, not these details. */
  operatorSells?: boolean;
  /** Customers may end a subscription at once in their portal, not only at the period's end (docs/decisions.md §34). */
  cancelNow: boolean;
  /** Customers may pause their subscriptions on their management page (docs/decisions.md §41). */
  customerPause?: boolean;
  /** Customers may change their seats on their management page (docs/decisions.md §39). */
  customerSeats?: boolean;
}): Html {
  const env = view.environment;
  const v = view.vendor;
  const typed = (name: string, saved: string) => view.form?.[name] ?? saved;
  const conversion = view.form ? view.form.allowConversion === 'yes' : v.allowConversion;
  const cancelNow = view.form ? view.form.cancelNow === 'yes' : view.cancelNow;
  const customerPause = view.form ? view.form.customerPause === 'yes' : !!view.customerPause;
  const customerSeats = view.form ? view.form.customerSeats === 'yes' : !!view.customerSeats;
  return html`<form method="post" action="/panel/settings?env=${env}" class="narrow">${csrfField(view.csrf)}
    <label class="check"><input type="checkbox" name="allowConversion" value="yes"${conversion ? html` checked` : ''}> Customers may pay in their own currency, converted from USD</label>
    <label class="check"><input type="checkbox" name="cancelNow" value="yes"${cancelNow ? html` checked` : ''}> Customers may end a subscription at once on their management page (without a refund); otherwise it ends when the paid period does</label>
    <label class="check"><input type="checkbox" name="customerPause" value="yes"${customerPause ? html` checked` : ''}> Customers may pause a subscription on their management page (from the end of the paid period until they resume it)</label>
    <label class="check"><input type="checkbox" name="customerSeats" value="yes"${customerSeats ? html` checked` : ''}> Customers may change the seats of a per-seat subscription on their management page (more from now on, fewer from the end of the paid period)</label>
    <label for="origins">Sites that may frame the admin tool (origins, comma-separated)</label><input id="origins" name="adminFrameOrigins" value="${typed('adminFrameOrigins', v.adminFrameOrigins.join(', '))}" placeholder="https://admin.example.com">
    <h2>On your invoices</h2>
    ${
      view.operatorSells
        ? html`<p class="muted">The operator of this server sells for you: invoices name it as the seller, on behalf of your seller name (else ${v.name}), with your support e-mail and logo.</p>`
        : html`<p class="muted">Invoices and credit notes show these as the seller. Your production checkout opens once the legal name, address, country and tax ID are all set.</p>`
    }
    <label for="sellerName">Seller name (your company's legal name)</label><input id="sellerName" name="sellerName" maxlength="200" value="${typed('sellerName', v.sellerName ?? '')}" placeholder="${v.name}">
    <label for="address">Address (one line each)</label><textarea id="address" name="address" rows="4">${typed('address', (v.address ?? []).join('\n'))}</textarea>
    <label for="country">Country (two-letter code, e.g. DE)</label><input id="country" name="country" maxlength="2" value="${typed('country', v.country ?? '')}" autocomplete="country">
    <label for="taxId">VAT or tax ID</label><input id="taxId" name="taxId" maxlength="40" value="${typed('taxId', v.taxId ?? '')}" placeholder="DE123456789">
    <label for="supportEmail">Support e-mail</label><input id="supportEmail" name="supportEmail" type="email" maxlength="254" value="${typed('supportEmail', v.supportEmail ?? '')}" placeholder="help@example.com">
    ${v.logo ? html`<p>Logo: <img class="logo-now" src="${v.logo}" alt="Your logo"></p><label class="check"><input type="checkbox" name="removeLogo" value="yes"${view.form?.removeLogo === 'yes' ? html` checked` : ''}> Remove the logo</label>` : ''}
    <button type="submit">Save the settings</button></form>
  <h2>Logo</h2>
  <div id="logo-upload" class="narrow" data-url="${LOGO_UPLOAD_PATH}?env=${env}" data-csrf="${view.csrf}" data-done="${panelHref('/panel/settings', env, { done: 'settings' })}"
    data-csrf-header="${LOGO_CSRF_HEADER}" data-types="${LOGO_TYPES.join(',')}" data-max-bytes="${LOGO_MAX_BYTES}" hidden>
    <label for="logo-file">${v.logo ? 'Replace the logo' : 'Upload a logo'} (PNG or JPEG, ${LOGO_MAX_BYTES / 1024} KB at most)</label>
    <input id="logo-file" type="file" accept="${LOGO_TYPES.join(',')}">
    <p id="logo-message" role="status" hidden></p>
  </div>
  <noscript><p class="muted" data-testid="logo-needs-js">Uploading a logo needs JavaScript here, or use <code>opentill vendor settings --logo FILE</code>.</p></noscript>
  <h2>Admin tool sessions</h2>
  <form method="post" action="/panel/admin-sessions?env=${env}" class="narrow">${csrfField(view.csrf)}
    <p class="muted">The admin tool stays open up to 8 hours in each browser that opened it. This ends every ${env} admin tool session now, yours too.</p>
    <button type="submit" class="secondary" data-testid="revoke-admin-sessions">End all ${env} admin tool sessions</button></form>`;
}
