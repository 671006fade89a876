import { canCancel, canUpdateCard, type PortalItem } from '../../../domain/customer-portal.ts';
import { formatInvoiceNumber } from '../../../domain/invoices.ts';
import { isPayment } from '../../../domain/ledger.ts';
import type { Environment, Transaction } from '../../../domain/model.ts';
import { formatAmount, formatMinor } from '../../../domain/money.ts';
import { html, type Html } from '../layout.ts';

const PERIOD: Record<Transaction['chargeFrequency'], string> = {
  DAILY: 'day',
  WEEKLY: 'week',
  MONTHLY: 'month',
  HALF_YEARLY: 'half-year',
  YEARLY: 'year',
  UNKNOWN: 'period',
};
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

/** What the customer reads for a status: plain words and the date that matters. */
function statusLine(t: Transaction): string {
  switch (t.status) {
    case 'SUBSCRIPTION_STATUS_ACTIVE':
      return `Active, next payment on ${day(t.nextCharge)}`;
    case 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL':
      return `Free trial, first payment on ${day(t.nextCharge)}`;
    case 'SUBSCRIPTION_STATUS_CANCELLED_PENDING':
      return `Cancelled, active until ${day(t.nextCharge)}`;
    case 'SUBSCRIPTION_STATUS_CANCELLED':
      return 'Ended';
    case 'TRANSACTION_STATUS_REFUNDED':
      return 'Refunded';
    case 'ONE_TIME_PAYMENT_STATUS_PAID':
      return `Paid on ${day(t.lastCharge ?? t.createdAt)}`;
    case 'VAULTED_STATUS_ACTIVE':
      return 'Card saved for future payments';
    case 'VAULTED_STATUS_INACTIVE':
      return 'Saved card removed';
    case 'TRANSACTION_STATUS_PENDING':
      return 'Payment pending';
  }
}

function hidden(formToken: string, action: string, id: string): Html {
  return html`<input type="hidden" name="formToken" value="${formToken}"><input type="hidden" name="action" value="${action}"><input type="hidden" name="transactionId" value="${id}">`;
}

function item(entry: PortalItem, environment: Environment, formToken: string): Html {
  const t = entry.transaction;
  const perPeriod = t.type === 'SUBSCRIPTION' ? ` per ${PERIOD[t.chargeFrequency]}` : '';
  return html`<section class="box" data-testid="purchase" data-id="${t.id}" aria-label="${t.productName}">
  <div class="top"><strong>${t.productName}</strong></div>
  <p data-testid="status">${statusLine(t)}</p>
  ${t.type !== 'VAULTED' ? html`<p class="muted">${formatAmount(t.netMinor + t.taxMinor, t.currency)}${perPeriod}${t.taxMinor ? ` (incl. ${t.taxName} ${formatMinor(t.taxMinor, t.currency)})` : ''}</p>` : ''}
  ${entry.licence ? html`<p>Licence key: <code data-testid="licence">${entry.licence}</code></p>` : ''}
  ${entry.card && t.type !== 'ONETIME' ? html`<p class="muted" data-testid="card">Card: ${entry.card.brand} ending in ${entry.card.last4}, expires ${String(entry.card.expMonth).padStart(2, '0')}/${entry.card.expYear}</p>` : ''}
  ${
    entry.entries.length
      ? html`<ul aria-label="Invoices">${entry.entries.map(
          (e) =>
            html`<li><a href="../invoice/${e.hashId}" download data-testid="invoice">${isPayment(e) ? 'Invoice' : 'Credit note'} ${formatInvoiceNumber(e.invoiceNumber!, environment)}</a> <span class="muted">${day(e.createdAt)}, ${formatAmount(Math.abs(e.amountTotalMinor), e.currency)}</span></li>`,
        )}</ul>`
      : ''
  }
  ${
    canUpdateCard(t)
      ? html`<details><summary>Change the card</summary><form method="post" autocomplete="on">${hidden(formToken, 'card', t.id)}
    <label for="card-${t.id}">Card number</label><input id="card-${t.id}" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required>
    <div class="row"><div><label for="exp-${t.id}">Expiry (MM/YY)</label><input id="exp-${t.id}" name="cardExpiry" autocomplete="cc-exp" placeholder="MM/YY" required></div>
    <div><label for="cvc-${t.id}">CVC</label><input id="cvc-${t.id}" name="cardCvc" inputmode="numeric" autocomplete="cc-csc" required></div></div>
    <button type="submit">Save the new card</button></form></details>`
      : ''
  }
  ${
    canCancel(t)
      ? html`<form method="post">${hidden(formToken, 'cancel', t.id)}<button type="submit" class="secondary" data-testid="cancel">${
          t.type === 'VAULTED' ? 'Remove the saved card' : t.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' ? 'Cancel the trial' : 'Cancel the subscription'
        }</button></form>`
      : ''
  }
</section>`;
}

export function managePage(view: {
  vendorName: string;
  email: string;
  environment: Environment;
  items: PortalItem[];
  formToken: string;
  notice?: string | undefined;
  error?: string | undefined;
}): Html {
  return html`<p class="muted">${view.vendorName}${view.environment === 'sandbox' ? ' · sandbox' : ''}</p>
  <h1>Your purchases</h1>
  <p class="muted">Signed in as ${view.email} by the link you were sent. It works for an hour.</p>
  ${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}
  ${view.items.length ? view.items.map((i) => item(i, view.environment, view.formToken)) : html`<p>You have no purchases with ${view.vendorName}.</p>`}`;
}
