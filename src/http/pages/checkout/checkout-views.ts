import type { Offer } from '../../../domain/catalog.ts';
import type { CardEntry } from '../../../domain/gateway.ts';
import type { Environment, Transaction } from '../../../domain/model.ts';
import { formatAmount } from '../../../domain/money.ts';
import type { PriceQuote } from '../../../domain/pricing.ts';
import { SANDBOX_TEST_CARDS } from '../../../gateways/sandbox-cards.ts';
import { html, type Html } from '../layout.ts';
import type { CheckoutPrefill } from './checkout-url.ts';

/** The checkout's pages: the payment form, the receipt, and "this link has expired". */
const EVERY: Record<string, string> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', HALF_YEARLY: 'six months', YEARLY: 'year' };

const percent = (rate: string) => `${(Number(rate) * 100).toLocaleString('en-US', { maximumFractionDigits: 3 })}%`;

export interface FormView {
  environment: Environment;
  vendorName: string;
  offer: Offer;
  quote: PriceQuote;
  country: string;
  /** The customer may pick the country (sandbox, or an address of unknown country). */
  countryEditable: boolean;
  countries: readonly string[];
  prefill: CheckoutPrefill;
  emailLocked: boolean;
  token: string;
  /** How the card is taken: opentill's fields, the processor's element, or not at all (no processor configured). */
  cardEntry: CardEntry;
  /** Whether this purchase needs a card at all (a free one-time purchase does not). */
  needsCard: boolean;
  error?: string | undefined;
  notice?: string | undefined;
}

function priceLines(offer: Offer, quote: PriceQuote): Html {
  const c = quote.currency;
  const { product } = offer;
  const every = product.type === 'SUBSCRIPTION' ? EVERY[product.chargeFrequency] : undefined;
  return html`<table aria-label="Price">
    ${
      quote.discountMinor > 0
        ? html`<tr><td>Price</td><td data-testid="list">${formatAmount(quote.netMinor + quote.discountMinor, c)}</td></tr>
    <tr><td>Discount</td><td data-testid="discount">−${formatAmount(quote.discountMinor, c)}</td></tr>
    <tr><td>Net</td><td data-testid="net">${formatAmount(quote.netMinor, c)}</td></tr>`
        : html`<tr><td>Price</td><td data-testid="net">${formatAmount(quote.netMinor, c)}</td></tr>`
    }
    <tr><td>${quote.taxName ? `${quote.taxName} (${percent(quote.taxRate)})` : 'Tax'}</td><td data-testid="tax">${formatAmount(quote.taxMinor, c)}</td></tr>
    <tr class="total"><td>Total${every ? ` every ${every}` : ''}</td><td data-testid="total">${formatAmount(quote.totalMinor, c)}</td></tr>
  </table>
  ${product.type === 'SUBSCRIPTION' && product.trialDays > 0 && !offer.customized?.transactionIdToMigrate ? html`<p class="muted">Free for ${product.trialDays} days; the first charge comes at the end of the trial.</p>` : ''}
  ${product.type === 'VAULTED' ? html`<p class="muted">Your card is stored with the payment provider so ${offer.product.name} can charge it later.</p>` : ''}`;
}

function header(view: { vendorName: string; offer: Offer }, embedded: boolean): Html {
  return html`<div class="top"><p class="muted">${view.vendorName}</p>${embedded ? html`<button type="button" class="link" id="close" aria-label="Close checkout">Close ✕</button>` : ''}</div>`;
}

export function checkoutForm(view: FormView, embedded: boolean): Html {
  const { offer, quote, prefill } = view;
  const migrating = !!offer.customized?.transactionIdToMigrate;
  const payLabel = migrating
    ? 'Switch subscription'
    : offer.product.type === 'SUBSCRIPTION' && offer.product.trialDays > 0
      ? 'Start free trial'
      : quote.totalMinor === 0
        ? 'Save card'
        : `Pay ${formatAmount(quote.totalMinor, quote.currency)}`;
  return html`${header(view, embedded)}
  <h1>${offer.product.name}</h1>
  ${offer.product.description ? html`<p class="muted">${offer.product.description}</p>` : ''}
  <div class="box">${priceLines(offer, quote)}${migrating ? html`<p class="muted" id="migration">This replaces your current subscription, which ends now. What is left of it pays for the first days of this one, so nothing is charged today; the receipt shows the date of the first charge.</p>` : ''}</div>
  ${view.error ? html`<div class="alert bad" role="alert" id="error">${view.error}</div>` : ''}
  ${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}
  <form method="post" id="checkout" novalidate>
    <input type="hidden" name="token" value="${view.token}">
    <input type="hidden" name="expectedCurrency" value="${quote.currency}">
    <input type="hidden" name="expectedTotal" value="${String(quote.totalMinor)}">
    <input type="hidden" name="appliedCoupon" value="${prefill.coupon ?? ''}">
    ${prefill.payload ? html`<input type="hidden" name="payload" value="${prefill.payload}">` : ''}
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="email" required value="${prefill.email ?? ''}"${view.emailLocked ? html` readonly aria-readonly="true"` : ''}>
    <div class="row">
      <div><label for="firstName">First name</label><input id="firstName" name="firstName" autocomplete="given-name" value="${prefill.firstName ?? ''}"></div>
      <div><label for="lastName">Last name</label><input id="lastName" name="lastName" autocomplete="family-name" value="${prefill.lastName ?? ''}"></div>
    </div>
    <div class="row">
      <div><label for="country">Country</label>${
        view.countryEditable
          ? html`<select id="country" name="country" autocomplete="country">${view.countries.map((c) => html`<option${c === view.country ? html` selected` : ''}>${c}</option>`)}</select>`
          : html`<input id="country" value="${view.country}" readonly aria-readonly="true">`
      }</div>
      <div><label for="zipCode">ZIP / postal code</label><input id="zipCode" name="zipCode" autocomplete="postal-code" value="${prefill.zipCode ?? ''}"></div>
    </div>
    <label for="coupon">Coupon (optional)</label>
    <input id="coupon" name="coupon" autocomplete="off" value="${prefill.coupon ?? ''}">
    ${cardFields(view)}
    <button type="submit" id="pay"${view.cardEntry.kind === 'none' ? html` disabled` : ''}>${payLabel}</button>
  </form>
  ${view.environment === 'sandbox' && view.cardEntry.kind === 'form' ? sandboxCards() : ''}`;
}

/** The card: opentill's own fields (virtual cards), or the processor's element, which keeps the card away from opentill. */
function cardFields(view: FormView): Html {
  if (!view.needsCard) return html``;
  if (view.cardEntry.kind === 'none')
    return html`<div class="alert bad" role="alert" id="no-processor">This shop cannot take payments yet: ${view.cardEntry.message}</div>`;
  if (view.cardEntry.kind === 'browser') {
    return html`<label id="card-label">Card</label>
    <div id="payment-element" class="element" aria-labelledby="card-label"></div>
    <noscript><div class="alert bad">The card field needs JavaScript: it is the payment processor's, so that your card never reaches this shop's server.</div></noscript>
    <div class="alert bad" role="alert" id="card-error" hidden></div>`;
  }
  return html`<label for="cardNumber">Card number</label>
    <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required placeholder="1234 1234 1234 1234">
    <div class="row">
      <div><label for="cardExpiry">Expiry (MM/YY)</label><input id="cardExpiry" name="cardExpiry" autocomplete="cc-exp" required placeholder="MM/YY"></div>
      <div><label for="cardCvc">CVC</label><input id="cardCvc" name="cardCvc" inputmode="numeric" autocomplete="cc-csc" required></div>
    </div>`;
}

function sandboxCards(): Html {
  return html`<div class="box muted" aria-label="Sandbox test cards"><p><strong>Sandbox</strong>: no real money moves. Test cards (any future expiry, any CVC):</p>
  <ul>${Object.entries(SANDBOX_TEST_CARDS).map(([number, card]) => html`<li><code>${number}</code> ${card.description}</li>`)}</ul></div>`;
}

export function receipt(
  view: { vendorName: string; offer: Offer; transaction: Transaction; licence: string | null; invoicePath: string | null },
  embedded: boolean,
): Html {
  const t = view.transaction;
  const total = t.netMinor + t.taxMinor;
  const paidNow = t.lastCharge !== null;
  return html`${header(view, embedded)}
  <h1>Thank you</h1>
  <div class="alert ok" role="status" id="receipt">${
    paidNow
      ? html`Payment of <strong>${formatAmount(total, t.currency)}</strong> received.`
      : t.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL'
        ? html`Your free trial has started.`
        : t.type === 'SUBSCRIPTION'
          ? html`Your subscription has started; the first charge is on ${t.nextCharge?.slice(0, 10) ?? ''}.`
          : html`Your card is saved.`
  }</div>
  <div class="box"><table aria-label="Receipt">
    <tr><td>Product</td><td>${t.productName}</td></tr>
    <tr><td>Price</td><td>${formatAmount(t.netMinor, t.currency)}</td></tr>
    <tr><td>${t.taxName || 'Tax'}</td><td>${formatAmount(t.taxMinor, t.currency)}</td></tr>
    <tr class="total"><td>Total</td><td>${formatAmount(total, t.currency)}</td></tr>
    ${t.nextCharge ? html`<tr><td>Next charge</td><td>${t.nextCharge.slice(0, 10)}</td></tr>` : ''}
    <tr><td>E-mail</td><td>${t.email}</td></tr>
    <tr><td>Reference</td><td><code data-testid="transaction-id">${t.id}</code></td></tr>
  </table>${view.invoicePath ? html`<p><a href="${view.invoicePath}" target="_blank" rel="noopener" data-testid="invoice">Download the invoice (PDF)</a></p>` : ''}</div>
  ${view.licence ? html`<div class="box"><p>Your licence key:</p><p><code data-testid="licence">${view.licence}</code></p></div>` : ''}`;
}
