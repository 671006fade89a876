import type { PayoutStatement, VendorBalance } from '../../../domain/books/index.ts';
import type { Environment, Vendor } from '../../../domain/model.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import { html, type Html } from '../layout.ts';
import { csrfField } from '../panel/panel-layout.ts';
import { operatorHref } from './operator-layout.ts';

type Money = (minor: number, currency: string) => string;
const moneyIn =
  (locale: string): Money =>
  (minor, currency) =>
    formatForBuyer(minor, currency, locale);
const vendorLink = (v: Pick<Vendor, 'id' | 'name'>, environment: Environment) =>
  html`<a href="${operatorHref(`/operator/vendors/${v.id}`, environment)}">${v.name}</a>`;

/** Every vendor's balance per currency: what the operator owes it, and what is still held back. */
export function balancesContent(view: {
  environment: Environment;
  balances: { vendor: Vendor; balance: VendorBalance }[];
  holdDays: number;
  locale: string;
}): Html {
  const money = moneyIn(view.locale);
  return html`<p class="muted">Each vendor's income (payments less tax, the processor's and the platform's fees, and refunds) not yet on a statement. Payments are held ${String(view.holdDays)} days (PAYOUT_HOLD_DAYS) before they go on one.</p>
  ${
    view.balances.length
      ? html`<div class="scroll"><table class="grid" aria-label="Balances"><thead><tr><th>Vendor</th><th>Currency</th><th class="num">Balance</th><th class="num">Still held</th><th class="num hide-phone">Carried</th></tr></thead><tbody>
  ${view.balances.map(
    ({ vendor, balance: b }) =>
      html`<tr data-testid="balance-${vendor.id}-${b.currency}"><td>${vendorLink(vendor, view.environment)}</td><td>${b.currency}</td><td class="num">${money(b.balanceMinor, b.currency)}</td><td class="num">${money(b.heldMinor, b.currency)}</td><td class="num hide-phone">${money(b.carriedMinor, b.currency)}</td></tr>`,
  )}</tbody></table></div>`
      : html`<p class="muted">Nothing owed to any vendor here.</p>`
  }`;
}

/** The form that makes a vendor's statements, one per currency, up to the end of a day. */
export function newStatementsForm(view: {
  environment: Environment;
  csrf: string;
  vendors: Vendor[];
  vendorId?: string | undefined;
  until: string;
}): Html {
  return html`<h2>Make statements</h2><form method="post" action="${operatorHref('/operator/payouts', view.environment)}" class="filters">${csrfField(view.csrf)}
  <div><label for="vendor">Vendor</label><select id="vendor" name="vendor" required>${view.vendors.map(
    (v) => html`<option value="${v.id}"${v.id === view.vendorId ? html` selected` : ''}>${v.name} (${v.id})</option>`,
  )}</select></div>
  <div><label for="until">Entries up to the end of</label><input id="until" name="until" type="date" value="${view.until}" required></div>
  <div><button type="submit" data-testid="make-statements">Make statements</button></div></form>`;
}

/** Statements of every vendor (or one), newest first. */
export function statementsContent(view: {
  environment: Environment;
  statements: { vendor: Vendor; statement: PayoutStatement }[];
  locale: string;
}): Html {
  const money = moneyIn(view.locale);
  if (view.statements.length === 0) return html`<h2>Statements</h2><p class="muted">No statements yet.</p>`;
  return html`<h2>Statements</h2><div class="scroll"><table class="grid" aria-label="Payout statements"><thead><tr><th>Vendor</th><th>Statement</th><th class="hide-phone">Entries before</th><th class="num">To pay</th><th>Paid</th></tr></thead><tbody>
  ${view.statements.map(
    ({ vendor, statement: s }) =>
      html`<tr data-testid="statement"><td>${vendorLink(vendor, view.environment)}</td><td><a href="${operatorHref(`/operator/payouts/${s.id}`, view.environment)}">No. ${String(s.number)}, ${s.currency}</a></td><td class="hide-phone">${s.until.slice(0, 10)}</td><td class="num">${money(s.payableMinor, s.currency)}</td><td>${s.paid ? `${s.paid.at.slice(0, 10)}, ${s.paid.reference}` : html`<span class="st warn">Not yet</span>`}</td></tr>`,
  )}</tbody></table></div>`;
}

/** Marking a statement paid: the bank's reference of the transfer. */
export function markPaidForm(s: PayoutStatement, view: { environment: Environment; csrf: string }): Html {
  if (s.paid) return html``;
  return html`<h2>Mark paid</h2><form method="post" action="${operatorHref(`/operator/payouts/${s.id}/paid`, view.environment)}" class="narrow">${csrfField(view.csrf)}
  <label for="reference">The transfer's reference</label><input id="reference" name="reference" required maxlength="200" autocomplete="off">
  <button type="submit" data-testid="mark-paid">Mark paid</button></form>`;
}
