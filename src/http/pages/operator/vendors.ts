import type { Environment, Vendor } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { csrfField } from '../panel/panel-layout.ts';
import { operatorHref } from './operator-layout.ts';

/** A vendor as the console lists it: the vendor, and the fee its payments pay. */
export interface VendorRow {
  vendor: Vendor;
  fee: { fee: string; own: boolean };
}

const production = (v: Vendor) =>
  v.productionEnabled ? html`<span class="st good">Enabled</span>` : html`<span class="st warn">Sandbox only</span>`;
const feeText = ({ fee, own }: VendorRow['fee']) => (own ? `${fee} (its own)` : `${fee} (PLATFORM_FEE)`);

/** Every vendor of this server: whether it sells in production, and its fee. */
export function vendorsContent(rows: VendorRow[], environment: Environment): Html {
  if (rows.length === 0)
    return html`<p class="muted">No vendors yet: make one with <code>opentill vendor create</code>.</p>`;
  return html`<div class="scroll"><table class="grid" aria-label="Vendors"><thead><tr><th>Vendor</th><th class="hide-phone">E-mail</th><th>Production</th><th class="num">Platform fee</th></tr></thead><tbody>
  ${rows.map(
    (r) =>
      html`<tr data-testid="vendor-${r.vendor.id}"><td><a href="${operatorHref(`/operator/vendors/${r.vendor.id}`, environment)}">${r.vendor.name}</a><span class="why">${r.vendor.id}</span></td><td class="hide-phone">${r.vendor.email}</td><td>${production(r.vendor)}</td><td class="num">${feeText(r.fee)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** One vendor: its facts, and the operator's forms (production, fee). */
export function vendorContent(row: VendorRow, view: { environment: Environment; csrf: string; fee?: string }): Html {
  const { vendor: v } = row;
  const action = (what: string) => operatorHref(`/operator/vendors/${v.id}/${what}`, view.environment);
  return html`<dl class="facts">
    <dt>Vendor ID</dt><dd><code>${v.id}</code></dd>
    <dt>E-mail</dt><dd>${v.email}</dd>
    <dt>Since</dt><dd>${v.createdAt.slice(0, 10)}</dd>
    <dt>Production</dt><dd data-testid="production">${production(v)}</dd>
    <dt>Platform fee</dt><dd data-testid="fee">${feeText(row.fee)}</dd>
  </dl>
  <p><a href="${operatorHref('/operator/balances', view.environment, { vendor: v.id })}">Balance</a> · <a href="${operatorHref('/operator/payouts', view.environment, { vendor: v.id })}">Statements</a> · <a href="${operatorHref('/operator/reports', view.environment, { vendor: v.id })}">Tax returns</a></p>
  ${
    v.productionEnabled
      ? ''
      : html`<h2>Production</h2><p class="muted">It signed up in an open panel and works in the sandbox only. Enabled, it takes real payments into this server's processor account.</p>
  <form method="post" action="${action('production')}">${csrfField(view.csrf)}<button type="submit" data-testid="enable-production">Enable production</button></form>`
  }
  <h2>Platform fee</h2>
  <form method="post" action="${action('fee')}" class="narrow">${csrfField(view.csrf)}
  <label for="fee">Its own fee, written like PLATFORM_FEE (5%+0.50USD, 5%, 0.30EUR or 0)</label>
  <input id="fee" name="fee" value="${view.fee ?? (row.fee.own ? row.fee.fee : '')}" placeholder="${row.fee.fee}" aria-describedby="fee-help">
  <p class="muted" id="fee-help">Empty: PLATFORM_FEE applies. Payments booked before keep the fee they paid.</p>
  <button type="submit" data-testid="save-fee">Save the fee</button></form>`;
}
