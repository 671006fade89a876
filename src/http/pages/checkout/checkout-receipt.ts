import type { PaymentMethod, Transaction } from '../../../domain/model.ts';
import { paymentMethodLabel, type Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';
import { receiptTrialThen, reverseChargeNote, taxLabel } from './checkout-price-lines.ts';
import { header, sandboxBadge } from './checkout-views.ts';

export interface ReceiptView {
  vendorName: string;
  transaction: Transaction;
  licence: string | null;
  invoicePath: string | null;
  /** What it was paid with (or the card kept for later); null when none was taken. */
  method: PaymentMethod | null;
  /** The customer's management page (docs/decisions.md §33): their way to invoices, the card and cancelling; null on an old receipt. */
  manageUrl: string | null;
}

/** What a receipt says when nothing was paid now: a trial started, a subscription that charges later, or a card saved. */
function startedUnpaid(tr: Translator, t: Transaction): string {
  if (t.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL') return tr.t('checkout.trialStarted');
  if (t.type === 'SUBSCRIPTION')
    return tr.t('checkout.subscriptionStarted', { date: t.nextCharge ? tr.date(t.nextCharge) : '' });
  return tr.t('checkout.cardSaved');
}

/**
 * The receipt: what was charged today and what follows, in the checkout's own words (a trial's
 * "Then $9.00 every month from December 3, 2026", never a total that was not charged), the method
 * paid with, the invoice, the licence and the way to the management page.
 */
export function receipt(tr: Translator, view: ReceiptView, embedded: boolean): Html {
  const t = view.transaction;
  const total = t.netMinor + t.taxMinor;
  const paidNow = t.lastCharge !== null;
  const money = (minor: number) => tr.money(minor, t.currency);
  const every = t.type === 'SUBSCRIPTION' ? tr.t('common.every', { frequency: t.chargeFrequency }) : undefined;
  const trialThen = receiptTrialThen(tr, t);
  const row = (label: string, value: string | Html, attrs: Html = html``) =>
    html`<tr${attrs}><td>${label}</td><td>${value}</td></tr>`;
  return html`${sandboxBadge(tr, t.environment)}${header(tr, view, embedded)}
  <h1>${tr.t('checkout.thankYou')}</h1>
  <div class="alert ok" role="status" id="receipt">${
    paidNow ? tr.html('checkout.paymentReceived', { amount: money(total) }, { b: bold }) : startedUnpaid(tr, t)
  }</div>
  <div class="box"><table class="receipt" aria-label="${tr.t('checkout.receiptTable')}">
    ${row(tr.t('checkout.product'), t.productName)}
    ${row(tr.t('checkout.price'), money(t.netMinor))}
    ${row(taxLabel(tr, t.taxName), money(t.taxMinor))}
    ${row(every ? tr.t('checkout.totalEvery', { every }) : tr.t('checkout.total'), money(total), html` class="total"`)}
    ${paidNow ? '' : row(tr.t('checkout.paidToday'), html`<span data-testid="paid-today">${money(0)}</span>`, html` class="total"`)}
    ${t.nextCharge && !trialThen ? row(tr.t('checkout.nextCharge'), html`<span data-testid="next-charge">${tr.date(t.nextCharge)}</span>`) : ''}
    ${t.businessName ? row(tr.t('checkout.company'), t.businessName) : ''}
    ${t.buyerVatId ? row(tr.t('checkout.vatId'), t.buyerVatId) : ''}
    ${row(tr.t('checkout.email'), t.email)}
    ${view.method ? row(tr.t(paidNow ? 'checkout.paidWith' : 'checkout.cardOnFile'), html`<span data-testid="payment-method">${paymentMethodLabel(tr, view.method)}</span>`) : ''}
    ${row(tr.t('checkout.reference'), html`<code data-testid="transaction-id">${t.id}</code>`)}
  </table>${trialThen ? html`<p data-testid="then">${trialThen}</p>` : ''}${t.reverseCharge ? reverseChargeNote(tr) : ''}${
    view.invoicePath
      ? html`<p><a href="${view.invoicePath}" target="_blank" rel="noopener" data-testid="invoice">${tr.t('checkout.invoice')}</a></p>`
      : ''
  }</div>
  ${view.licence ? html`<div class="box"><p>${tr.t('checkout.licence')}</p><p><code data-testid="licence">${view.licence}</code></p></div>` : ''}
  ${view.manageUrl ? html`<div class="box"><p><a href="${view.manageUrl}" target="_blank" rel="noopener" data-testid="manage">${tr.t('checkout.manage')}</a></p><p class="muted">${tr.t('checkout.manageNote')}</p></div>` : ''}`;
}

/** The receipt's labels keep a share of the line, so a long reference or e-mail breaks instead of squeezing them. */
export const RECEIPT_STYLE = 'table.receipt td:first-child{width:45%;padding-inline-end:.75rem}';

/** The `<b>` of a message: its content in bold. */
export const bold = (content: Html): Html => html`<strong>${content}</strong>`;
