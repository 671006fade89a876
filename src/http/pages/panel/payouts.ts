import type { PayoutStatement, VendorBalance } from '../../../domain/books/index.ts';
import type { Environment } from '../../../domain/model.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import { html, type Html } from '../layout.ts';
import { panelHref } from './panel-layout.ts';

/** An ISO moment as `2026-11-27 05:06 UTC`. */
const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** The vendor's balances and statements (docs/decisions.md §22): what the platform owes it, and what it paid. */
export function payoutsContent(view: {
  environment: Environment;
  balances: VendorBalance[];
  statements: PayoutStatement[];
  holdDays: number;
  locale: string;
}): Html {
  const money = (minor: number, currency: string) => formatForBuyer(minor, currency, view.locale);
  return html`<p class="muted">What the platform owes you: your income (payments less tax, the processor's and the platform's fees, and refunds), paid on numbered statements. ${
    view.holdDays > 0
      ? `A payment waits ${view.holdDays} day${view.holdDays === 1 ? '' : 's'} before it goes on one; a refund or chargeback goes on the next at once.`
      : 'Payments, refunds and chargebacks go on the next statement at once.'
  }</p>
  <h2>Balance</h2>
  ${
    view.balances.length
      ? html`<div class="scroll"><table class="grid" aria-label="Balance per currency"><thead><tr><th>Currency</th><th class="num">Balance</th><th class="num">Still held</th><th class="num hide-phone">Carried from a statement</th></tr></thead><tbody>
  ${view.balances.map(
    (b) =>
      html`<tr data-testid="balance-${b.currency}"><td>${b.currency}</td><td class="num">${money(b.balanceMinor, b.currency)}</td><td class="num">${money(b.heldMinor, b.currency)}</td><td class="num hide-phone">${money(b.carriedMinor, b.currency)}</td></tr>`,
  )}</tbody></table></div>`
      : html`<p class="muted">Nothing owed yet.</p>`
  }
  <h2>Statements</h2>
  ${
    view.statements.length
      ? html`<div class="scroll"><table class="grid" aria-label="Payout statements"><thead><tr><th>Number</th><th class="hide-phone">Entries before</th><th class="num">To pay</th><th>Paid</th></tr></thead><tbody>
  ${view.statements.map(
    (s) =>
      html`<tr data-testid="statement"><td><a href="${panelHref(`/panel/payouts/${s.id}`, view.environment)}">Statement ${String(s.number)}, ${s.currency}</a></td><td class="hide-phone">${utc(s.until)}</td><td class="num">${money(s.payableMinor, s.currency)}</td><td>${s.paid ? `${s.paid.at.slice(0, 10)}, ${s.paid.reference}` : 'Not yet'}</td></tr>`,
  )}</tbody></table></div>`
      : html`<p class="muted">No statements yet: the operator makes them.</p>`
  }`;
}

/** One statement: its lines, what it pays, and links to its PDF and CSV (the panel's or the console's). */
export function statementContent(s: PayoutStatement, links: { pdf: string; csv: string }, locale: string): Html {
  const money = (minor: number) => formatForBuyer(minor, s.currency, locale);
  const row = (label: string, minor: number, testid: string) =>
    html`<tr><th scope="row">${label}</th><td class="num" data-testid="${testid}">${money(minor)}</td></tr>`;
  const t = s.totals;
  return html`<p class="muted">Entries booked before ${utc(s.until)}, ${String(s.entryCount)} of them. ${
    s.paid ? `Paid on ${s.paid.at.slice(0, 10)}, reference ${s.paid.reference}.` : 'Not paid yet.'
  }</p>
  <div class="scroll"><table class="grid" aria-label="Statement ${String(s.number)}"><tbody>
    ${row('Payments, with tax', t.grossMinor, 'gross')}
    ${row('Refunds', t.refundsMinor, 'refunds')}
    ${row('Chargebacks', t.chargebacksMinor, 'chargebacks')}
    ${row('Tax', -t.taxMinor, 'tax')}
    ${row("Processor's fees", -t.processorFeesMinor, 'processor-fees')}
    ${row('Platform fees', -t.platformFeesMinor, 'platform-fees')}
    ${t.roundingMinor ? row('Rounding of partial refunds', t.roundingMinor, 'rounding') : ''}
    ${row('Your income', t.incomeMinor, 'income')}
    ${s.carriedInMinor ? row('Carried from the statement before', s.carriedInMinor, 'carried-in') : ''}
    ${row('To pay', s.payableMinor, 'payable')}
    ${s.carriedOutMinor ? row('Carried to the next statement', s.carriedOutMinor, 'carried-out') : ''}
  </tbody></table></div>
  <p><a href="${links.pdf}" data-testid="pdf">Download as PDF</a> · <a href="${links.csv}" data-testid="csv">as CSV</a> (every entry it covers)</p>`;
}
