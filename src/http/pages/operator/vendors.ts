import type { VendorStatus } from '../../../domain/catalog/index.ts';
import type { Environment } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { csrfField } from '../panel/panel-layout.ts';
import { operatorHref } from './operator-layout.ts';

const production = (s: VendorStatus) =>
  s.productionEnabled ? html`<span class="st good">Enabled</span>` : html`<span class="st warn">Sandbox only</span>`;
const selling = (s: VendorStatus) =>
  s.suspension
    ? html`<span class="st bad">Suspended${s.suspension.renewalsStopped ? ', renewals stopped' : ''}</span>`
    : html`<span class="st good">Selling</span>`;
/** The seller identity a production sale needs: whose, and what is missing (the operator's is set on the server). */
const identity = (s: VendorStatus) =>
  s.seller.missing.length === 0
    ? html`<span class="st good">Complete</span>`
    : html`<span class="st warn">Missing ${s.seller.missing.join(', ')}</span>${s.seller.seller === 'operator' ? html`<span class="why">the operator's own (SELLER_… settings)</span>` : ''}`;
const feeText = ({ fee, own }: VendorStatus['fee']) => (own ? `${fee} (its own)` : `${fee} (PLATFORM_FEE)`);

/** Every vendor of this server: whether it sells, in production, with the identity a sale needs, and its fee. */
export function vendorsContent(rows: VendorStatus[], environment: Environment): Html {
  if (rows.length === 0)
    return html`<p class="muted">No vendors yet: make one with <code>opentill vendor create</code>.</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Vendors"><table class="grid"><thead><tr><th>Vendor</th><th>State</th><th>Production</th><th class="hide-phone">Seller identity</th><th class="num hide-phone">Platform fee</th></tr></thead><tbody>
  ${rows.map(
    (r) =>
      html`<tr data-testid="vendor-${r.vendor.id}"><td><a href="${operatorHref(`/operator/vendors/${r.vendor.id}`, environment)}">${r.vendor.name}</a><span class="why">${r.vendor.email}</span></td><td>${selling(r)}</td><td>${production(r)}</td><td class="hide-phone">${identity(r)}</td><td class="num hide-phone">${feeText(r.fee)}</td></tr>`,
  )}</tbody></table></div>`;
}

type VendorView = { environment: Environment; csrf: string; fee?: string | undefined; reason?: string | undefined };

/** One vendor: its facts, and the operator's forms (production, suspension, fee). */
export function vendorContent(row: VendorStatus, view: VendorView): Html {
  const { vendor: v } = row;
  return html`<dl class="facts">
    <dt>Vendor ID</dt><dd><code>${v.id}</code></dd>
    <dt>E-mail</dt><dd>${v.email}</dd>
    <dt>Since</dt><dd>${v.createdAt.slice(0, 10)}</dd>
    <dt>State</dt><dd data-testid="state">${selling(row)}${row.suspension ? html`<span class="why">since ${row.suspension.since.slice(0, 10)}${row.suspension.reason ? `: ${row.suspension.reason}` : ''}</span>` : ''}</dd>
    <dt>Production</dt><dd data-testid="production">${production(row)}</dd>
    <dt>Seller identity</dt><dd data-testid="identity">${identity(row)}</dd>
    <dt>Platform fee</dt><dd data-testid="fee">${feeText(row.fee)}</dd>
  </dl>
  <p><a href="${operatorHref('/operator/balances', view.environment, { vendor: v.id })}">Balance</a> · <a href="${operatorHref('/operator/payouts', view.environment, { vendor: v.id })}">Statements</a> · <a href="${operatorHref('/operator/reports', view.environment, { vendor: v.id })}">Tax returns</a></p>
  ${productionForm(row, view)}${suspensionForm(row, view)}${feeForm(row, view)}`;
}

const action = (row: VendorStatus, view: VendorView, what: string) =>
  operatorHref(`/operator/vendors/${row.vendor.id}/${what}`, view.environment);

function productionForm(row: VendorStatus, view: VendorView): Html {
  if (row.productionEnabled) return html``;
  return html`<h2>Production</h2><p class="muted">It signed up in an open panel and works in the sandbox only. Enabled, it takes real payments into this server's processor account.</p>
  <form method="post" action="${action(row, view, 'production')}">${csrfField(view.csrf)}<button type="submit" data-testid="enable-production">Enable production</button></form>`;
}

function suspensionForm(row: VendorStatus, view: VendorView): Html {
  if (row.suspension)
    return html`<h2>Suspension</h2><p class="muted">Its checkout takes no new purchase${row.suspension.renewalsStopped ? ', and no renewal is charged' : '; renewals go on'}. Resumed, renewals that fell due meanwhile are charged once.</p>
  <form method="post" action="${action(row, view, 'resume')}">${csrfField(view.csrf)}<button type="submit" data-testid="resume">Resume selling</button></form>`;
  return html`<h2>Suspension</h2><form method="post" action="${action(row, view, 'suspend')}" class="narrow">${csrfField(view.csrf)}
  <p class="muted">Its checkout then refuses new purchases in both environments; its customers can still see, cancel and be refunded what they bought.</p>
  <label for="reason">Why (for your records and the vendor's panel)</label><input id="reason" name="reason" maxlength="500" value="${view.reason ?? ''}">
  <label class="check"><input type="checkbox" name="stopRenewals" value="yes"> Stop its renewals too</label>
  <button type="submit" class="danger" data-testid="suspend">Suspend</button></form>`;
}

function feeForm(row: VendorStatus, view: VendorView): Html {
  return html`<h2>Platform fee</h2>
  <form method="post" action="${action(row, view, 'fee')}" class="narrow">${csrfField(view.csrf)}
  <label for="fee">Its own fee, written like PLATFORM_FEE (5%+0.50USD, 5%, 0.30EUR or 0)</label>
  <input id="fee" name="fee" value="${view.fee ?? (row.fee.own ? row.fee.fee : '')}" placeholder="${row.fee.fee}" aria-describedby="fee-help">
  <p class="muted" id="fee-help">Empty: PLATFORM_FEE applies. Payments booked before keep the fee they paid.</p>
  <button type="submit" data-testid="save-fee">Save the fee</button></form>`;
}
