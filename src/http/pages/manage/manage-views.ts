import { canCancel, canEditBilling, canUpdateCard, type PortalItem } from '../../../domain/portal/index.ts';
import type { CardEntry } from '../../../domain/payments/index.ts';
import { formatInvoiceNumber } from '../../../domain/reports/index.ts';
import { isPayment } from '../../../domain/payments/index.ts';
import type { Environment, Transaction } from '../../../domain/model.ts';
import { taxLabel } from '../../../documents/tax-label.ts';
import { paymentMethodLabel, type Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';
import { licenceInstances } from './manage-licence.ts';
import { pauseBlock } from './manage-pause.ts';
import { seatsBlock } from './manage-seats.ts';

/** What the customer reads for a status: plain words and the date that matters. */
function statusLine(tr: Translator, t: Transaction, pausing = false): string {
  const date = (iso: string | null) => (iso ? tr.date(iso) : '');
  switch (t.status) {
    case 'SUBSCRIPTION_STATUS_ACTIVE':
      // Paused until resumed: no next payment to name; until the pause starts, the paid period's end (docs/decisions.md §41).
      if (t.nextCharge) return tr.t('manage.statusActive', { date: date(t.nextCharge) });
      return pausing && t.pause
        ? tr.t('manage.statusPausing', { date: date(t.pause.startsAt) })
        : tr.t('manage.statusPaused');
    case 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL':
      return tr.t('manage.statusTrial', { date: date(t.nextCharge) });
    case 'SUBSCRIPTION_STATUS_CANCELLED_PENDING':
      return tr.t('manage.statusCancelling', { date: date(t.nextCharge) });
    case 'SUBSCRIPTION_STATUS_CANCELLED':
      return tr.t('manage.statusEnded');
    case 'TRANSACTION_STATUS_REFUNDED':
      return tr.t('manage.statusRefunded');
    case 'ONE_TIME_PAYMENT_STATUS_PAID':
      return tr.t('manage.statusPaid', { date: date(t.lastCharge ?? t.createdAt) });
    case 'VAULTED_STATUS_ACTIVE':
      return tr.t('manage.statusVaulted');
    case 'VAULTED_STATUS_INACTIVE':
      return tr.t('manage.statusVaultedRemoved');
    case 'TRANSACTION_STATUS_PENDING':
      return tr.t('manage.statusPending');
  }
}

export function hidden(formToken: string, action: string, id: string): Html {
  return html`<input type="hidden" name="formToken" value="${formToken}"><input type="hidden" name="action" value="${action}"><input type="hidden" name="transactionId" value="${id}">`;
}

/** The price the customer pays, per period for a subscription, with the tax in it named. */
export function priceLine(
  tr: Translator,
  t: Pick<Transaction, 'type' | 'chargeFrequency' | 'currency' | 'netMinor' | 'taxMinor' | 'taxName'>,
): string {
  const total = tr.money(t.netMinor + t.taxMinor, t.currency);
  const price =
    t.type === 'SUBSCRIPTION'
      ? tr.t('common.recurringPrice', { price: total, every: tr.t('common.every', { frequency: t.chargeFrequency }) })
      : total;
  return t.taxMinor
    ? tr.t('manage.priceWithTax', { price, taxName: taxLabel(tr, t.taxName), tax: tr.money(t.taxMinor, t.currency) })
    : price;
}

/** The held renewal: what the bank asks, and (with the processor's script) the button that lets the customer confirm it. */
function requiresAction(entry: PortalItem, view: ManageView): Html {
  const { cardEntry, vendorName, formToken, tr } = view;
  const t = entry.transaction;
  const held = entry.awaitingAuthentication;
  if (!held) return html``;
  const amount = tr.money(held.amountMinor, held.currency);
  return html`<div class="alert bad" role="alert" data-testid="requires-action">
    <p><strong>${tr.t('manage.confirmHeading', { amount, product: t.productName })}</strong></p>
    <p>${tr.t('manage.confirmNotPaid')}${t.nextCharge ? ` ${tr.t('manage.confirmRetry', { date: tr.date(t.nextCharge) })}` : ''}</p>
    ${
      cardEntry === 'browser'
        ? html`<form method="post" data-confirm-payment="${t.id}">${hidden(formToken, 'authenticated', t.id)}
    <noscript><p>${tr.t('manage.confirmNeedsScript')}</p></noscript>
    <p class="confirm-error" role="alert" hidden></p>
    <button type="submit" data-testid="confirm-payment" disabled>${tr.t('manage.confirmButton')}</button></form>`
        : html`<p>${tr.t('manage.confirmAskSeller', { vendor: vendorName })}</p>`
    }
  </div>`;
}

/** Change the card: opentill's own fields (virtual cards), or the processor's element, which keeps the card away from opentill. */
function cardChange(t: Transaction, view: ManageView): Html {
  const { tr, formToken } = view;
  if (view.cardEntry === 'browser') {
    return html`<details><summary>${tr.t('manage.changeCard')}</summary><form method="post" data-card-change="${t.id}" data-currency="${t.currency.toLowerCase()}">${hidden(formToken, 'card-complete', t.id)}<input type="hidden" name="cardSession" value="">
    <label id="card-label-${t.id}">${tr.t('manage.newCard')}</label><div class="element" data-card-element aria-labelledby="card-label-${t.id}"></div>
    <noscript><div class="alert bad">${tr.t('manage.cardNeedsScript')}</div></noscript>
    <div class="alert bad card-error" role="alert" hidden></div>
    <button type="submit" data-testid="save-card" disabled>${tr.t('manage.saveCard')}</button></form></details>`;
  }
  return html`<details><summary>${tr.t('manage.changeCard')}</summary><form method="post" autocomplete="on">${hidden(formToken, 'card', t.id)}
    <label for="card-${t.id}">${tr.t('manage.cardNumber')}</label><input id="card-${t.id}" name="cardNumber" inputmode="numeric" autocomplete="cc-number" dir="ltr" required>
    <div class="row"><div><label for="exp-${t.id}">${tr.t('manage.cardExpiry')}</label><input id="exp-${t.id}" name="cardExpiry" autocomplete="cc-exp" placeholder="MM/YY" dir="ltr" required></div>
    <div><label for="cvc-${t.id}">${tr.t('manage.cardCvc')}</label><input id="cvc-${t.id}" name="cardCvc" inputmode="numeric" autocomplete="cc-csc" dir="ltr" required></div></div>
    <button type="submit">${tr.t('manage.saveCard')}</button></form></details>`;
}

/** The cancel link's words: what cancelling ends. */
export function cancelLabel(tr: Translator, t: Transaction): string {
  if (t.type === 'VAULTED') return tr.t('manage.removeCard');
  return tr.t(t.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' ? 'manage.cancelTrial' : 'manage.cancelSubscription');
}

/** Invoices and credit notes, newest first, each a PDF download. */
function documents(entry: PortalItem, view: ManageView): Html {
  const { tr } = view;
  if (!entry.entries.length) return html``;
  const rows = [...entry.entries].reverse().map((e) => {
    const number = formatInvoiceNumber(e.invoiceNumber!, view.environment);
    const label = tr.t(isPayment(e) ? 'manage.invoice' : 'manage.creditNote', { number });
    // Each part isolated, so a right-to-left page does not run the number, the date and the amount together.
    return html`<li><a href="../invoice/${e.hashId}" download data-testid="invoice"><bdi>${label}</bdi></a> <bdi class="muted">${tr.date(e.createdAt, 'medium')} · ${tr.money(Math.abs(e.amountTotalMinor), e.currency)}</bdi></li>`;
  });
  return html`<h2 id="docs-${entry.transaction.id}">${tr.t('manage.documents')}</h2><ul aria-labelledby="docs-${entry.transaction.id}">${rows}</ul>`;
}

/** Links to the pages that change the purchase: billing details, plan, cancellation. */
function actions(entry: PortalItem, view: ManageView): Html {
  const { tr } = view;
  const t = entry.transaction;
  const to = (page: string) =>
    `?${new URLSearchParams({ page, id: t.id, ...(view.localeParam ? { locale: view.localeParam } : {}) })}`;
  const links = [
    canEditBilling(t)
      ? html`<a class="action" href="${to('billing')}" data-testid="edit-billing">${tr.t('manage.editBilling')}</a>`
      : '',
    entry.canSwitch
      ? html`<a class="action" href="${to('switch')}" data-testid="change-plan">${tr.t('manage.changePlan')}</a>`
      : '',
    canCancel(t)
      ? html`<a class="action bad" href="${to('cancel')}" data-testid="cancel">${cancelLabel(tr, t)}</a>`
      : '',
  ].filter((link) => link !== '');
  return links.length ? html`<p class="actions">${links}</p>` : html``;
}

function item(entry: PortalItem, view: ManageView): Html {
  const { tr } = view;
  const t = entry.transaction;
  const card = entry.card && t.type !== 'ONETIME' ? entry.card : null;
  return html`<section class="box" data-testid="purchase" data-id="${t.id}" aria-label="${t.productName}">
  <div class="top"><strong>${t.productName}</strong></div>
  <p data-testid="status">${statusLine(tr, t, entry.pause?.state === 'scheduled')}</p>
  ${requiresAction(entry, view)}
  ${pauseBlock(entry, { tr, formToken: view.formToken, hidden })}
  ${t.type !== 'VAULTED' ? html`<p class="muted" data-testid="price">${priceLine(tr, t)}</p>` : ''}
  ${seatsBlock(entry, { tr, formToken: view.formToken, hidden })}
  ${entry.licence ? html`<p>${tr.t('manage.licenceKey')}: <code class="key" data-testid="licence" dir="ltr">${entry.licence}</code></p>` : ''}
  ${licenceInstances(entry, { tr, formToken: view.formToken, hidden })}
  ${card ? html`<p class="muted" data-testid="card">${tr.t('manage.cardLine', { method: paymentMethodLabel(tr, card), expires: tr.t('common.cardExpires', { expiry: `${String(card.expMonth).padStart(2, '0')}/${card.expYear}` }) })}</p>` : ''}
  ${documents(entry, view)}
  ${canUpdateCard(t) ? cardChange(t, view) : ''}
  ${actions(entry, view)}
</section>`;
}

export interface ManageView {
  tr: Translator;
  vendorName: string;
  email: string;
  environment: Environment;
  items: PortalItem[];
  formToken: string;
  /** How this environment takes a card: opentill's fields, or the processor's element (which needs its script). */
  cardEntry: CardEntry['kind'];
  /** The `?locale=` the customer chose, kept on the page's links. */
  localeParam: string | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}

/** The page's own look: the action links side by side, wrapping on a phone; logical sides, so RTL mirrors. */
export const MANAGE_STYLE = `.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:1rem}
.actions a{display:inline-block;padding:.5rem .8rem;border:1px solid var(--line);border-radius:.5rem;text-decoration:none;font-weight:600}
.actions a.bad{color:var(--bad);border-color:#f4b7b2}fieldset{border:0;padding:0;margin:1rem 0}legend{font-weight:600;margin-bottom:.3rem}
.back{display:inline-block;margin-top:1rem}code.key{display:inline-block}
.instances li{margin:.4rem 0}.instances button.link{padding-inline:0;text-align:start}
.seat-row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.seat-row input{width:7rem}.seat-row button{width:auto;margin:0;padding-inline:1.2rem}`;

export function managePage(view: ManageView): Html {
  const { tr } = view;
  return html`<p class="muted">${view.vendorName}${view.environment === 'sandbox' ? ` · ${tr.t('manage.testMode')}` : ''}</p>
  <h1>${tr.t('manage.title')}</h1>
  <p class="muted">${tr.t('manage.signedInAs', { email: view.email })}</p>
  ${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}
  ${view.items.length ? view.items.map((i) => item(i, view)) : html`<p>${tr.t('manage.noPurchases', { vendor: view.vendorName })}</p>`}`;
}
