import type { Environment, LedgerEntry, Product, Transaction } from '../../../domain/model.ts';
import { formatForBuyer, formatMinor } from '../../../domain/money/index.ts';
import { MAX_REASON_LENGTH, refundableNow } from '../../../domain/payments/index.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';
import { csvCell } from '../../../domain/csv.ts';
import { frequencyWord, STATUS_FILTERS, statusWord, TYPE_WORDS, typeWord } from './words.ts';

export { refundedNotice } from './words.ts';

/** The list's filters as the query string carries them. */
export interface ListQuery {
  q?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  product?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  page?: string | undefined;
}

export const PAGE_SIZE = 25;

function badgeClass(status: string): string {
  if (/ACTIVE$|PAID$/.test(status)) return 'good';
  if (/TRIAL|PENDING/.test(status)) return 'warn';
  return /REFUNDED|CANCELLED|INACTIVE/.test(status) ? 'bad' : '';
}
export const statusBadge = (t: Pick<Transaction, 'status'>) =>
  html`<span class="st ${badgeClass(t.status)}">${statusWord(t.status)}</span>`;
export const kindText = (t: Pick<Transaction, 'type' | 'chargeFrequency'>) =>
  t.type === 'SUBSCRIPTION'
    ? `${typeWord(t.type)}, ${frequencyWord(t.chargeFrequency).toLowerCase()}`
    : typeWord(t.type);

export function transactionRows(transactions: Transaction[], environment: Environment, locale: string): Html {
  return html`<div class="scroll"><table class="grid" aria-label="Transactions"><thead><tr><th class="hide-phone">Date</th><th>Customer</th><th class="hide-phone">Product</th><th class="hide-phone">Type</th><th>Status</th><th class="num">Amount</th></tr></thead><tbody>
  ${transactions.map(
    (
      t,
    ) => html`<tr data-testid="transaction" data-id="${t.id}"><td class="hide-phone">${t.createdAt.slice(0, 10)}</td><td><a href="${panelHref(`/panel/transactions/${t.id}`, environment)}">${t.assignedEmail ?? t.email}</a></td>
    <td class="hide-phone">${t.productName}</td><td class="hide-phone">${kindText(t)}</td><td>${statusBadge(t)}</td><td class="num">${formatForBuyer(t.netMinor + t.taxMinor, t.currency, locale)}</td></tr>`,
  )}</tbody></table></div>`;
}

export function transactionsContent(view: {
  environment: Environment;
  query: ListQuery;
  products: Product[];
  transactions: Transaction[];
  total: number;
  page: number;
  /** The vendor's locale (Accept-Language, else en-US), for amounts. */
  locale: string;
}): Html {
  const { environment: env, query: q } = view;
  const pages = Math.max(1, Math.ceil(view.total / PAGE_SIZE));
  const filters = { q: q.q, status: q.status, type: q.type, product: q.product, from: q.from, to: q.to };
  const option = (value: string, label: string, selected: string | undefined) =>
    html`<option value="${value}"${selected === value ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/panel/transactions" class="filters" role="search"><input type="hidden" name="env" value="${env}">
    <div><label for="q">E-mail or ID</label><input id="q" name="q" value="${q.q ?? ''}" placeholder="jane@example.com"></div>
    <div><label for="status">Status</label><select id="status" name="status">${option('', 'Any', q.status)}${Object.entries(STATUS_FILTERS).map(([k, v]) => option(k, v.label, q.status))}</select></div>
    <div><label for="type">Type</label><select id="type" name="type">${option('', 'Any', q.type)}${Object.entries(TYPE_WORDS).map(([k, v]) => option(k, v, q.type))}</select></div>
    <div><label for="product">Product</label><select id="product" name="product">${option('', 'Any', q.product)}${view.products.map((p) => option(p.id, p.name, q.product))}</select></div>
    <div><label for="from">From</label><input id="from" name="from" type="date" value="${q.from ?? ''}"></div>
    <div><label for="to">To (inclusive)</label><input id="to" name="to" type="date" value="${q.to ?? ''}"></div>
    <div><button type="submit">Search</button></div></form>
  <p class="inline muted"><span data-testid="count">${view.total} transaction${view.total === 1 ? '' : 's'}</span>
    <a href="${panelHref('/panel/transactions.csv', env, filters)}" data-testid="csv">Download as CSV</a></p>
  ${view.transactions.length ? transactionRows(view.transactions, env, view.locale) : html`<p class="muted">No transactions match.</p>`}
  ${
    pages > 1
      ? html`<p class="pager">${view.page > 1 ? html`<a href="${panelHref('/panel/transactions', env, { ...filters, page: view.page - 1 })}" rel="prev">Previous</a>` : ''}
    <span class="muted">Page ${view.page} of ${pages}</span>${view.page < pages ? html`<a href="${panelHref('/panel/transactions', env, { ...filters, page: view.page + 1 })}" rel="next">Next</a>` : ''}</p>`
      : ''
  }`;
}

export const cancellable = (t: Transaction) =>
  t.status === 'SUBSCRIPTION_STATUS_ACTIVE' ||
  t.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' ||
  t.status === 'VAULTED_STATUS_ACTIVE';

/** What refunding all that is left does besides: to a subscription, a one-time purchase, a saved card. */
function afterFullRefund(type: Transaction['type']): string {
  if (type === 'SUBSCRIPTION') return 'ends the subscription';
  return type === 'ONETIME' ? 'marks the purchase refunded' : 'leaves the saved card as it is';
}

/** The confirmation step of a refund or a cancellation: nothing happens before its explicit button. */
export function confirmContent(view: {
  environment: Environment;
  transaction: Transaction;
  entries: LedgerEntry[];
  csrf: string;
  action: 'refund' | 'cancel';
  locale: string;
  /** What the vendor typed, shown again with what was wrong with it. */
  form?: FormBody | undefined;
}): Html {
  const { transaction: t, environment: env } = view;
  const back = panelHref(`/panel/transactions/${t.id}`, env);
  const post = (
    fields: Html,
    label: string,
  ) => html`<form method="post" action="${panelHref(`/panel/transactions/${t.id}/${view.action}`, env)}" class="narrow">${csrfField(view.csrf)}<input type="hidden" name="version" value="${String(view.entries.length)}">
  ${fields}<div class="inline"><button type="submit" class="secondary" data-testid="confirm">${label}</button><a class="button" href="${back}">No, go back</a></div></form>`;
  if (view.action === 'cancel') {
    if (!cancellable(t)) return html`<p>This transaction cannot be cancelled.</p><p><a href="${back}">Back</a></p>`;
    return html`<p>This cancels ${t.productName} of ${t.email}. ${
      t.status === 'SUBSCRIPTION_STATUS_ACTIVE'
        ? 'It stays usable to the end of the period paid for, then ends; nothing is refunded.'
        : 'It ends now.'
    }</p>${post(html``, `Yes, cancel ${t.type === 'VAULTED' ? 'the saved card' : 'the subscription'}`)}`;
  }
  const left = refundableNow(t, view.entries);
  if (!left) return html`<p>There is nothing left to refund on this transaction.</p><p><a href="${back}">Back</a></p>`;
  const money = (minor: number) => formatForBuyer(minor, left.payment.currency, view.locale);
  const all = afterFullRefund(t.type);
  return html`<p>Payment of ${left.payment.createdAt.slice(0, 10)} by ${t.email} for ${t.productName}: ${money(left.payment.amountTotalMinor)}${
    left.reversedMinor > 0 ? `, of which ${money(left.reversedMinor)} is already taken back` : ''
  }. <strong>${money(left.remainingMinor)}</strong> can be refunded.</p>
  ${post(
    html`<label for="amount">Amount to refund (${left.payment.currency}, at most ${formatMinor(left.remainingMinor, left.payment.currency)})</label>
    <input id="amount" name="amount" inputmode="decimal" autocomplete="off" required value="${view.form?.amount ?? formatMinor(left.remainingMinor, left.payment.currency)}" aria-describedby="amount-help">
    <p class="muted" id="amount-help">Refunding all of it ${all}; a part changes nothing else. A refund cannot be undone.</p>
    <label for="reason">Reason (optional, kept with the refund and shown on the credit note)</label>
    <textarea id="reason" name="reason" rows="2" maxlength="${String(MAX_REASON_LENGTH)}">${view.form?.reason ?? ''}</textarea>`,
    'Refund',
  )}`;
}

/** The filtered list as CSV (RFC 4180), with a guard against spreadsheet formulas. */
export function transactionsCsv(transactions: Transaction[]): string {
  const header = [
    'id',
    'created_at',
    'email',
    'assigned_email',
    'product',
    'type',
    'frequency',
    'status',
    'currency',
    'net',
    'tax',
    'total',
    'country',
  ];
  const rows = transactions.map((t) =>
    [
      t.id,
      t.createdAt,
      t.email,
      t.assignedEmail,
      t.productName,
      typeWord(t.type),
      t.type === 'SUBSCRIPTION' ? frequencyWord(t.chargeFrequency) : '',
      statusWord(t.status),
      t.currency,
      formatMinor(t.netMinor, t.currency),
      formatMinor(t.taxMinor, t.currency),
      formatMinor(t.netMinor + t.taxMinor, t.currency),
      t.country,
    ]
      .map(csvCell)
      .join(','),
  );
  return `${[header.join(','), ...rows].join('\r\n')}\r\n`;
}
