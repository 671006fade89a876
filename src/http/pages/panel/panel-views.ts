import type { IssuedCredential } from '../../../domain/credentials.ts';
import type { Coupon, Environment, Product, Vendor } from '../../../domain/model.ts';
import { formatAmount, formatMinor } from '../../../domain/money.ts';
import type { StoredCredential } from '../../../domain/ports.ts';
import { html, type Html } from '../layout.ts';

export interface PanelView {
  vendor: Vendor;
  email: string;
  environment: Environment;
  csrf: string;
  credentials: Omit<StoredCredential, 'secretHash'>[];
  products: Product[];
  coupons: Coupon[];
  widgetUrl: string;
  apiBase: string;
  paymentLink: (productId: string) => string;
  issued?: IssuedCredential | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}

const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

export function authPage(view: { mode: 'signin' | 'signup'; csrf: string; error?: string | undefined; email?: string | undefined }): Html {
  const signup = view.mode === 'signup';
  return html`<p class="muted">opentill · vendor panel</p><h1>${signup ? 'Create your account' : 'Sign in'}</h1>
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}
  <form method="post" action="/panel/${view.mode}">${csrfField(view.csrf)}
  ${signup ? html`<label for="company">Company name</label><input id="company" name="company" autocomplete="organization" required>` : ''}
  <label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" value="${view.email ?? ''}" required>
  <label for="password">Password${signup ? ' (at least 10 characters)' : ''}</label><input id="password" name="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" minlength="${signup ? 10 : 1}" required>
  <button type="submit">${signup ? 'Create the account' : 'Sign in'}</button></form>
  <p class="muted">${signup ? html`Have an account? <a href="/panel/signin">Sign in</a>` : html`New here? <a href="/panel/signup">Create an account</a>`}</p>`;
}

/** Prices by currency, USD first: the order vendors entered them in is not kept. */
const byCurrency = (prices: Record<string, number>) => Object.entries(prices).sort(([a], [b]) => (a === 'USD' ? -1 : b === 'USD' ? 1 : a.localeCompare(b)));
/** As the price field takes them: "USD 20.00, EUR 18.50". */
const priceText = (prices: Record<string, number>) =>
  byCurrency(prices)
    .map(([currency, minor]) => `${currency} ${formatMinor(minor, currency)}`)
    .join(', ');

function productRow(p: Product, view: PanelView): Html {
  const snippet = `<script src="${view.widgetUrl}"></script>\n<span data-ts-price data-ts-product="${p.id}"></span>\n<button data-ts-button data-ts-product="${p.id}">Buy</button>`;
  const prices = byCurrency(p.prices)
    .map(([currency, minor]) => formatAmount(minor, currency))
    .join(', ');
  return html`<section class="box" data-testid="product" data-id="${p.id}"><strong>${p.name}</strong>
  <p class="muted">${p.type}${p.type === 'SUBSCRIPTION' ? ` · ${p.chargeFrequency}` : ''}${p.trialDays ? ` · ${p.trialDays}-day trial` : ''}${p.issuesLicences ? ' · licences' : ''} · ${prices}</p>
  <p>ID <code id="id-${p.id}">${p.id}</code> <button type="button" class="link" data-copy="id-${p.id}">Copy</button></p>
  <p>Payment link <code id="link-${p.id}">${view.paymentLink(p.id)}</code> <button type="button" class="link" data-copy="link-${p.id}">Copy</button></p>
  <p>Script for your page <button type="button" class="link" data-copy="snippet-${p.id}">Copy</button></p><pre id="snippet-${p.id}" data-testid="snippet">${snippet}</pre>
  <details><summary>Edit</summary><form method="post" action="/panel/products/edit?env=${view.environment}">${csrfField(view.csrf)}<input type="hidden" name="id" value="${p.id}">
    <label for="name-${p.id}">Name</label><input id="name-${p.id}" name="name" value="${p.name}" required maxlength="200">
    <label for="prices-${p.id}">Net prices, USD required</label><input id="prices-${p.id}" name="prices" value="${priceText(p.prices)}" required>
    ${p.type === 'SUBSCRIPTION' ? html`<label for="trial-${p.id}">Trial days</label><input id="trial-${p.id}" name="trialDays" inputmode="numeric" value="${String(p.trialDays)}">` : ''}
    <label class="check"><input type="checkbox" name="licences" value="yes"${p.issuesLicences ? html` checked` : ''}> Issue a licence key with each purchase</label>
    <p class="muted">New prices apply to new purchases and to renewals from now on.</p>
    <button type="submit">Save the product</button></form></details></section>`;
}

export function dashboard(view: PanelView): Html {
  const env = view.environment;
  const other: Environment = env === 'sandbox' ? 'production' : 'sandbox';
  return html`<div class="top"><p class="muted">${view.vendor.name} · ${view.email}</p>
  <form method="post" action="/panel/signout">${csrfField(view.csrf)}<button type="submit" class="link">Sign out</button></form></div>
  <h1>${env === 'sandbox' ? 'Sandbox' : 'Production'}</h1>
  <p><a href="?env=${other}" data-testid="switch">Switch to ${other}</a></p>
  ${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}

  <h2 id="api">API setup</h2>
  <p class="muted">API base URL: <code data-testid="api-base">${view.apiBase}/v1</code>. The ${env} credentials below work there only; send one as the header <code>Authorization: LOGIN:PASSWORD</code>.</p>
  ${
    view.issued
      ? html`<div class="alert ok" role="status" data-testid="issued"><p>Your new credential. Copy it now: it is shown only once.</p>
    <p><code id="new-credential" data-testid="authorization">${view.issued.authorization}</code> <button type="button" class="link" data-copy="new-credential">Copy</button></p></div>`
      : ''
  }
  <table class="list" aria-label="Credentials">${view.credentials.map(
    (
      c,
    ) => html`<tr data-testid="credential"><td><code>${c.login}</code><br><span class="muted">created ${c.createdAt.slice(0, 10)}${c.revokedAt ? `, revoked ${c.revokedAt.slice(0, 10)}` : ''}</span></td>
    <td>${c.revokedAt ? '' : html`<form method="post" action="/panel/credentials?env=${env}">${csrfField(view.csrf)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="id" value="${c.id}"><button type="submit" class="link">Revoke</button></form>`}</td></tr>`,
  )}</table>
  <form method="post" action="/panel/credentials?env=${env}">${csrfField(view.csrf)}<input type="hidden" name="action" value="create"><button type="submit" data-testid="new-credential">Create a ${env} credential</button></form>

  <h2 id="products">Products</h2>
  ${view.products.length ? view.products.map((p) => productRow(p, view)) : html`<p class="muted">No ${env} products yet.</p>`}
  <details class="box"><summary>New product</summary><form method="post" action="/panel/products?env=${env}">${csrfField(view.csrf)}
    <label for="name">Name</label><input id="name" name="name" required maxlength="200">
    <label for="type">Type</label><select id="type" name="type"><option value="ONETIME">One-time purchase</option><option value="SUBSCRIPTION">Subscription</option><option value="VAULTED">Saved card (vaulted)</option></select>
    <label for="frequency">Charged (subscriptions)</label><select id="frequency" name="frequency"><option>MONTHLY</option><option>YEARLY</option><option>HALF_YEARLY</option><option>WEEKLY</option><option>DAILY</option></select>
    <label for="trialDays">Trial days (subscriptions)</label><input id="trialDays" name="trialDays" inputmode="numeric" value="0">
    <label for="prices">Net prices, USD required</label><input id="prices" name="prices" placeholder="USD 20.00, EUR 18.50" required>
    <label class="check"><input type="checkbox" name="licences" value="yes"> Issue a licence key with each purchase</label>
    <button type="submit">Create the product</button></form></details>

  <h2 id="coupons">Coupons</h2>
  <table class="list" aria-label="Coupons">${view.coupons.map((c) => {
    const product = view.products.find((p) => p.id === c.productId);
    const off = c.percentOff !== null ? `${c.percentOff}% off` : `${priceText(c.amountsOff)} off`;
    return html`<tr data-testid="coupon"><td><code>${c.code}</code> · ${product?.name ?? c.productId}<br><span class="muted">${off}${c.expiresAt ? `, until ${c.expiresAt.slice(0, 10)}` : ''}${c.revokedAt ? ', revoked' : ''}</span></td>
    <td>${c.revokedAt ? '' : html`<form method="post" action="/panel/coupons?env=${view.environment}">${csrfField(view.csrf)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="id" value="${c.id}"><button type="submit" class="link">Revoke</button></form>`}</td></tr>`;
  })}</table>
  ${
    view.products.length
      ? html`<details class="box"><summary>New coupon</summary><form method="post" action="/panel/coupons?env=${env}">${csrfField(view.csrf)}<input type="hidden" name="action" value="create">
    <label for="coupon-product">Product</label><select id="coupon-product" name="productId">${view.products.map((p) => html`<option value="${p.id}">${p.name}</option>`)}</select>
    <label for="coupon-code">Code</label><input id="coupon-code" name="code" required maxlength="32" placeholder="LAUNCH25">
    <label for="coupon-off">Discount: a percentage, or amounts off</label><input id="coupon-off" name="off" required placeholder="25% or USD 5, EUR 4.50">
    <label for="coupon-expires">Expires (optional)</label><input id="coupon-expires" name="expiresAt" type="date">
    <button type="submit">Create the coupon</button></form></details>`
      : ''
  }

  <h2 id="transactions">Transactions</h2>
  <form method="post" action="/panel/transactions?env=${env}">${csrfField(view.csrf)}<button type="submit" data-testid="transactions">Open the ${env} transactions</button></form>

  <h2 id="settings">Settings</h2>
  <form method="post" action="/panel/settings?env=${env}">${csrfField(view.csrf)}
    <label class="check"><input type="checkbox" name="allowConversion" value="yes"${view.vendor.allowConversion ? html` checked` : ''}> Customers may pay in their own currency, converted from USD</label>
    <label for="origins">Sites that may frame the admin tool (origins, comma-separated)</label><input id="origins" name="adminFrameOrigins" value="${view.vendor.adminFrameOrigins.join(', ')}" placeholder="https://admin.example.com">
    <button type="submit">Save the settings</button></form>
  <form method="post" action="/panel/admin-sessions?env=${env}">${csrfField(view.csrf)}
    <p class="muted">The admin tool stays open up to 8 hours in each browser that opened it. This ends every ${env} admin tool session now, yours too.</p>
    <button type="submit" class="secondary" data-testid="revoke-admin-sessions">End all ${env} admin tool sessions</button></form>`;
}

/** Copy buttons: the only script of the panel, allowed by the page's nonce. */
export const COPY_SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function(b){b.addEventListener('click',function(){
var t=document.getElementById(b.getAttribute('data-copy')).textContent;navigator.clipboard.writeText(t).then(function(){b.textContent='Copied'},function(){b.textContent='Select and copy'})})})`;
