import { canCancel, canUpdateCard, type PortalItem } from '../../../domain/portal/index.ts';
import type { CardEntry } from '../../../domain/payments/index.ts';
import { formatInvoiceNumber } from '../../../domain/reports/index.ts';
import { isPayment } from '../../../domain/payments/index.ts';
import type { Environment, Transaction } from '../../../domain/model.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
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

/** The held renewal: what the bank asks, and (with the processor's script) the button that lets the customer confirm it. */
function requiresAction(entry: PortalItem, view: ManageView): Html {
  const { cardEntry, vendorName, formToken } = view;
  const t = entry.transaction;
  const held = entry.awaitingAuthentication;
  if (!held) return html``;
  return html`<div class="alert bad" role="alert" data-testid="requires-action">
    <p><strong>Your bank asks you to confirm the payment of ${formatForBuyer(held.amountMinor, held.currency, view.locale)} for ${t.productName}.</strong></p>
    <p>It is not paid until you confirm it.${t.nextCharge ? ` Otherwise the card is tried again on ${day(t.nextCharge)}.` : ''}</p>
    ${
      cardEntry === 'browser'
        ? html`<form method="post" data-confirm-payment="${t.id}">${hidden(formToken, 'authenticated', t.id)}
    <noscript><p>Confirming the payment needs JavaScript: your bank's check runs in the payment processor's window.</p></noscript>
    <p class="confirm-error" role="alert" hidden></p>
    <button type="submit" data-testid="confirm-payment" disabled>Confirm the payment</button></form>`
        : html`<p>Ask ${vendorName || 'the seller'} how to pay it.</p>`
    }
  </div>`;
}

/** Change the card: opentill's own fields (virtual cards), or the processor's element, which keeps the card away from opentill. */
function cardChange(t: Transaction, cardEntry: CardEntry['kind'], formToken: string): Html {
  if (cardEntry === 'browser') {
    return html`<details><summary>Change the card</summary><form method="post" data-card-change="${t.id}" data-currency="${t.currency.toLowerCase()}">${hidden(formToken, 'card-complete', t.id)}<input type="hidden" name="cardSession" value="">
    <label id="card-label-${t.id}">New card</label><div class="element" data-card-element aria-labelledby="card-label-${t.id}"></div>
    <noscript><div class="alert bad">The card field needs JavaScript: it is the payment processor's, so that your card never reaches this shop's server.</div></noscript>
    <div class="alert bad card-error" role="alert" hidden></div>
    <button type="submit" data-testid="save-card" disabled>Save the new card</button></form></details>`;
  }
  return html`<details><summary>Change the card</summary><form method="post" autocomplete="on">${hidden(formToken, 'card', t.id)}
    <label for="card-${t.id}">Card number</label><input id="card-${t.id}" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required>
    <div class="row"><div><label for="exp-${t.id}">Expiry (MM/YY)</label><input id="exp-${t.id}" name="cardExpiry" autocomplete="cc-exp" placeholder="MM/YY" required></div>
    <div><label for="cvc-${t.id}">CVC</label><input id="cvc-${t.id}" name="cardCvc" inputmode="numeric" autocomplete="cc-csc" required></div></div>
    <button type="submit">Save the new card</button></form></details>`;
}

/** The cancel button's words: what cancelling ends. */
function cancelLabel(t: Transaction): string {
  if (t.type === 'VAULTED') return 'Remove the saved card';
  return t.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' ? 'Cancel the trial' : 'Cancel the subscription';
}

function item(entry: PortalItem, view: ManageView): Html {
  const { environment, formToken } = view;
  const t = entry.transaction;
  const perPeriod = t.type === 'SUBSCRIPTION' ? ` per ${PERIOD[t.chargeFrequency]}` : '';
  const money = (minor: number) => formatForBuyer(minor, t.currency, view.locale);
  return html`<section class="box" data-testid="purchase" data-id="${t.id}" aria-label="${t.productName}">
  <div class="top"><strong>${t.productName}</strong></div>
  <p data-testid="status">${statusLine(t)}</p>
  ${requiresAction(entry, view)}
  ${t.type !== 'VAULTED' ? html`<p class="muted">${money(t.netMinor + t.taxMinor)}${perPeriod}${t.taxMinor ? ` (incl. ${t.taxName} ${money(t.taxMinor)})` : ''}</p>` : ''}
  ${entry.licence ? html`<p>Licence key: <code data-testid="licence">${entry.licence}</code></p>` : ''}
  ${entry.card && t.type !== 'ONETIME' ? html`<p class="muted" data-testid="card">Card: ${entry.card.brand} ending in ${entry.card.last4}, expires ${String(entry.card.expMonth).padStart(2, '0')}/${entry.card.expYear}</p>` : ''}
  ${
    entry.entries.length
      ? html`<ul aria-label="Invoices">${entry.entries.map(
          (e) =>
            html`<li><a href="../invoice/${e.hashId}" download data-testid="invoice">${isPayment(e) ? 'Invoice' : 'Credit note'} ${formatInvoiceNumber(e.invoiceNumber!, environment)}</a> <span class="muted">${day(e.createdAt)}, ${formatForBuyer(Math.abs(e.amountTotalMinor), e.currency, view.locale)}</span></li>`,
        )}</ul>`
      : ''
  }
  ${canUpdateCard(t) ? cardChange(t, view.cardEntry, formToken) : ''}
  ${
    canCancel(t)
      ? html`<form method="post">${hidden(formToken, 'cancel', t.id)}<button type="submit" class="secondary" data-testid="cancel">${cancelLabel(t)}</button></form>`
      : ''
  }
</section>`;
}

export interface ManageView {
  vendorName: string;
  email: string;
  environment: Environment;
  items: PortalItem[];
  formToken: string;
  /** How this environment takes a card: opentill's fields, or the processor's element (which needs its script). */
  cardEntry: CardEntry['kind'];
  /** The customer's locale (Accept-Language), for amounts, as at checkout. */
  locale: string;
  notice?: string | undefined;
  error?: string | undefined;
}

export function managePage(view: ManageView): Html {
  return html`<p class="muted">${view.vendorName}${view.environment === 'sandbox' ? ' · sandbox' : ''}</p>
  <h1>Your purchases</h1>
  <p class="muted">Signed in as ${view.email} by the link you were sent. It works for an hour.</p>
  ${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}
  ${view.items.length ? view.items.map((i) => item(i, view)) : html`<p>You have no purchases with ${view.vendorName}.</p>`}`;
}
