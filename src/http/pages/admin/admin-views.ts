import { canCancel } from '../../../domain/portal/index.ts';
import { formatInvoiceNumber } from '../../../domain/reports/index.ts';
import { isPayment } from '../../../domain/payments/index.ts';
import type { Environment, LedgerEntry, Transaction, WhoCanceled } from '../../../domain/model.ts';
import { formatForBuyer, formatMinor } from '../../../domain/money/index.ts';
import { MAX_REASON_LENGTH, refundableNow } from '../../../domain/payments/index.ts';
import { countryName } from '../../../documents/country-names.ts';
import type { ReversalState } from '../../../domain/payments/index.ts';
import { html, type Html } from '../layout.ts';
import { entryLabel, frequencyWord, typeWord } from '../panel/words.ts';

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');
const STATUS_WORDS: Record<Transaction['status'], string> = {
  TRANSACTION_STATUS_PENDING: 'Pending',
  TRANSACTION_STATUS_REFUNDED: 'Refunded',
  ONE_TIME_PAYMENT_STATUS_PAID: 'Paid',
  SUBSCRIPTION_STATUS_ACTIVE: 'Active',
  SUBSCRIPTION_STATUS_ACTIVE_TRIAL: 'Trial',
  SUBSCRIPTION_STATUS_CANCELLED_PENDING: 'Cancelled (paid period running)',
  SUBSCRIPTION_STATUS_CANCELLED: 'Cancelled',
  VAULTED_STATUS_ACTIVE: 'Card saved',
  VAULTED_STATUS_INACTIVE: 'Card removed',
};

const CANCELLED_BY: Record<WhoCanceled, string> = {
  TRANSACTION_CLOUD_ADMIN: 'The operator',
  VENDOR: 'The vendor',
  CUSTOMER: 'The customer',
  NEXT_CHARGE_FAILED: 'A failed charge',
  WALLET_PROVIDER: 'The wallet provider',
};

function header(vendorName: string, environment: Environment): Html {
  return html`<p class="muted">${vendorName} · transactions admin${environment === 'sandbox' ? ' · sandbox' : ''}</p>`;
}

function messages(view: { notice?: string | undefined; error?: string | undefined }): Html {
  return html`${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}`;
}

export function adminList(view: {
  vendorName: string;
  environment: Environment;
  session: string;
  query: string;
  transactions: Transaction[];
  /** The reader's locale (Accept-Language, else en-US), for amounts. */
  locale: string;
  notice?: string | undefined;
  error?: string | undefined;
}): Html {
  return html`${header(view.vendorName, view.environment)}
  <h1>Transactions</h1>
  ${messages(view)}
  <form method="get" role="search"><label for="q">Search by e-mail or transaction ID</label>
  <div class="row search"><div><input id="q" name="q" value="${view.query}" placeholder="customer@example.com or TC-TR_…"></div><div class="fixed"><button type="submit">Search</button></div></div></form>
  <p class="muted">${view.query ? `${view.transactions.length} found for "${view.query}"` : `The latest ${view.transactions.length}`}</p>
  <table aria-label="Transactions" class="list">
  ${view.transactions.map(
    (
      t,
    ) => html`<tr data-testid="row" data-id="${t.id}"><td><a href="${view.session}/tx/${t.id}">${t.email}</a><br><span class="muted">${t.productName} · ${day(t.createdAt)}</span></td>
      <td>${formatForBuyer(t.netMinor + t.taxMinor, t.currency, view.locale)}<br><span class="muted">${STATUS_WORDS[t.status]}</span></td></tr>`,
  )}</table>`;
}

export function adminDetail(view: {
  vendorName: string;
  environment: Environment;
  session: string;
  transaction: Transaction;
  entries: LedgerEntry[];
  formToken: string;
  /** The reader's locale (Accept-Language, else en-US), for amounts. */
  locale: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** What was typed into the refund form, shown again with what was wrong with it. */
  form?: { amount?: string | undefined; reason?: string | undefined } | undefined;
}): Html {
  const t = view.transaction;
  const money = (minor: number, currency = t.currency) => formatForBuyer(minor, currency, view.locale);
  const version = String(view.entries.length);
  const form = (action: string, body: Html) =>
    html`<form method="post"><input type="hidden" name="formToken" value="${view.formToken}"><input type="hidden" name="action" value="${action}"><input type="hidden" name="version" value="${version}">${body}</form>`;
  const left = refundableNow(t, view.entries);
  const cancellable = canCancel(t);
  return html`${header(view.vendorName, view.environment)}
  <p><a href="../../${view.session}">← All transactions</a></p>
  <h1>${t.productName}</h1>
  ${messages(view)}
  <div class="box"><table aria-label="Transaction" class="fields">
    <tr><td>ID</td><td><code data-testid="id">${t.id}</code></td></tr>
    <tr><td>Status</td><td data-testid="status">${STATUS_WORDS[t.status]}</td></tr>
    <tr><td>Type</td><td>${typeWord(t.type)}${t.type === 'SUBSCRIPTION' ? ` (${frequencyWord(t.chargeFrequency).toLowerCase()})` : ''}</td></tr>
    <tr><td>Customer</td><td>${t.email}</td></tr>
    <tr><td>Assigned e-mail</td><td data-testid="assigned">${t.assignedEmail ?? '—'}</td></tr>
    <tr><td>Country</td><td>${countryName(t.country)}${t.region ? ` (${t.region})` : ''}</td></tr>
    <tr><td>Price</td><td>${money(t.netMinor)} + ${t.taxName || 'tax'} ${money(t.taxMinor)}</td></tr>
    <tr><td>Created</td><td>${day(t.createdAt)}</td></tr>
    ${t.lastCharge ? html`<tr><td>Last charge</td><td>${day(t.lastCharge)}</td></tr>` : ''}
    ${t.nextCharge ? html`<tr><td>Next charge</td><td>${day(t.nextCharge)}</td></tr>` : ''}
    ${t.whoCanceled ? html`<tr><td>Cancelled by</td><td>${CANCELLED_BY[t.whoCanceled]}</td></tr>` : ''}
  </table></div>
  <h2>Ledger</h2>
  ${view.entries.length === 0 ? html`<p class="muted">No payments yet.</p>` : ''}
  <table aria-label="Ledger" class="list">${view.entries.map(
    (e) =>
      html`<tr data-testid="entry" data-type="${e.type}"><td>${entryLabel(e)}${e.description ? html` · <span data-testid="reason">${e.description}</span>` : ''}<br><span class="muted">${day(e.createdAt)}${
        e.invoiceNumber
          ? html` · <a href="../../../../invoice/${e.hashId}" download>${isPayment(e) ? 'Invoice' : 'Credit note'} ${formatInvoiceNumber(e.invoiceNumber, view.environment)}</a>`
          : ''
      }</span></td><td>${money(e.amountTotalMinor, e.currency)}</td></tr>`,
  )}</table>
  ${left ? refundForm(left, view.form, money, (body) => form('refund', body)) : ''}
  ${cancellable ? form('cancel', html`<button type="submit" class="secondary" data-testid="cancel">${t.type === 'VAULTED' ? 'Deactivate the saved card' : 'Cancel the subscription'}</button>`) : ''}
  ${form('assign', html`<label for="assignEmail">Assign to e-mail</label><input id="assignEmail" name="assignEmail" type="email" value="${t.assignedEmail ?? ''}" required><button type="submit">Assign</button>`)}
  ${form('payload', html`<label for="payload">Payload</label><textarea id="payload" name="payload" maxlength="4999" rows="4">${t.payload ?? ''}</textarea><button type="submit">Save the payload</button>`)}`;
}

/** The refund form: all that is left of the latest payment unless the amount is changed, and an optional reason kept with it. */
function refundForm(
  left: ReversalState,
  typed: { amount?: string | undefined; reason?: string | undefined } | undefined,
  money: (minor: number, currency?: string) => string,
  form: (body: Html) => Html,
): Html {
  const { payment } = left;
  return html`<h2>Refund</h2><p data-testid="refundable">Payment of ${day(payment.createdAt)}: ${money(payment.amountTotalMinor, payment.currency)}${
    left.reversedMinor > 0 ? `, ${money(left.reversedMinor, payment.currency)} already taken back` : ''
  }. Up to <strong>${money(left.remainingMinor, payment.currency)}</strong> can be refunded.</p>
  ${form(html`<label for="amount">Amount (${payment.currency})</label><input id="amount" name="amount" inputmode="decimal" autocomplete="off" required value="${typed?.amount ?? formatMinor(left.remainingMinor, payment.currency)}">
  <label for="reason">Reason (optional)</label><input id="reason" name="reason" maxlength="${String(MAX_REASON_LENGTH)}" value="${typed?.reason ?? ''}">
  <button type="submit" class="secondary" data-testid="refund">Refund</button>`)}`;
}
