import type { Offer } from '../../../domain/catalog/index.ts';
import { dueToday } from '../../../domain/checkout/index.ts';
import type { CardEntry } from '../../../domain/payments/index.ts';
import type { Environment, Transaction } from '../../../domain/model.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import type { PriceQuote } from '../../../domain/tax/index.ts';
import { SANDBOX_TEST_CARDS } from '../../../domain/payments/index.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import type { CheckoutPrefill } from './checkout-url.ts';

/** What each field needs, the same words from the page's script and from the server. */
export { FIELD_MESSAGES } from './field-messages.ts';

/** The checkout's pages: the payment form, the receipt, and "this link has expired". */
const EVERY: Record<string, string> = {
  DAILY: 'day',
  WEEKLY: 'week',
  MONTHLY: 'month',
  HALF_YEARLY: 'six months',
  YEARLY: 'year',
};

/** Country names as a buyer reads them (Intl, English), each list sorted by name once. */
const regionNames = new Intl.DisplayNames('en', { type: 'region' });
export const countryName = (code: string) => {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
};
const sortedByName = new WeakMap<readonly string[], { code: string; name: string }[]>();
function countryOptions(codes: readonly string[]) {
  let sorted = sortedByName.get(codes);
  if (!sorted) {
    sorted = codes
      .map((code) => ({ code, name: countryName(code) }))
      .sort((a, b) => a.name.localeCompare(b.name, 'en'));
    sortedByName.set(codes, sorted);
  }
  return sorted;
}

/** The fields a failed submit can mark, each with what to fix. */
export type FieldName =
  | 'email'
  | 'country'
  | 'zipCode'
  | 'businessName'
  | 'buyerAddress'
  | 'vatId'
  | 'coupon'
  | 'cardNumber'
  | 'cardExpiry'
  | 'cardCvc';
export type FieldErrors = Partial<Record<FieldName, string>>;
const FIELD_ORDER: readonly FieldName[] = [
  'email',
  'country',
  'zipCode',
  'businessName',
  'buyerAddress',
  'vatId',
  'coupon',
  'cardNumber',
  'cardExpiry',
  'cardCvc',
];

/** An input's invalid state: `aria-invalid`, the message it is described by, and focus on the first one marked. */
function invalid(errors: FieldErrors | undefined, name: FieldName): Html {
  const message = errors?.[name];
  if (!message) return html``;
  const first = FIELD_ORDER.find((f) => errors[f]) === name;
  return html` aria-invalid="true" aria-describedby="${name}-error"${first ? html` autofocus` : ''}`;
}
const fieldError = (errors: FieldErrors | undefined, name: FieldName): Html =>
  errors?.[name] ? html`<p class="field-error" id="${name}-error">${errors[name]}</p>` : html``;

const longDate = (date: Date) => date.toLocaleDateString('en-US', { dateStyle: 'long', timeZone: 'UTC' });

const percent = (rate: string) => `${(Number(rate) * 100).toLocaleString('en-US', { maximumFractionDigits: 3 })}%`;

export interface FormView {
  environment: Environment;
  vendorName: string;
  offer: Offer;
  quote: PriceQuote;
  /** The buyer's locale (Accept-Language), for amounts. */
  locale: string;
  country: string;
  /** The customer may pick the country (sandbox, or an address of unknown country). */
  countryEditable: boolean;
  countries: readonly string[];
  /** Where the form's script asks for the price of another country, ZIP code or coupon. */
  quoteUrl: string;
  prefill: CheckoutPrefill;
  emailLocked: boolean;
  token: string;
  /** How the card is taken: opentill's fields, the processor's element, or not at all (no processor configured). */
  cardEntry: CardEntry;
  /** Whether this purchase needs a card at all (a free one-time purchase does not). */
  needsCard: boolean;
  /** Now, for the date a trial ends. */
  now: Date;
  error?: string | undefined;
  notice?: string | undefined;
  fieldErrors?: FieldErrors | undefined;
}

/** The Pay button says what happens today (the domain's dueToday: nothing is charged in a trial or a switch). */
export function payLabel(offer: Offer, quote: PriceQuote, locale: string): string {
  if (offer.customized?.transactionIdToMigrate) return 'Switch subscription';
  if (dueToday(offer, quote.totalMinor).trial) return 'Start free trial';
  return quote.totalMinor === 0 ? 'Save card' : `Pay ${formatForBuyer(quote.totalMinor, quote.currency, locale)}`;
}

/** The price table (and what a trial charges when): shown in the page, and sent again by the quote endpoint when the country, ZIP or coupon change. */
export function priceLines(offer: Offer, quote: PriceQuote, now: Date, locale: string): Html {
  const money = (minor: number) => formatForBuyer(minor, quote.currency, locale);
  const { product } = offer;
  const every = product.type === 'SUBSCRIPTION' ? EVERY[product.chargeFrequency] : undefined;
  const today = dueToday(offer, quote.totalMinor);
  return html`<table aria-label="Price">
    ${
      quote.discountMinor > 0
        ? html`<tr><td>Price</td><td data-testid="list">${money(quote.netMinor + quote.discountMinor)}</td></tr>
    <tr><td>Discount</td><td data-testid="discount">−${money(quote.discountMinor)}</td></tr>
    <tr><td>Net</td><td data-testid="net">${money(quote.netMinor)}</td></tr>`
        : html`<tr><td>Price</td><td data-testid="net">${money(quote.netMinor)}</td></tr>`
    }
    <tr><td>${quote.taxName ? `${quote.taxName} (${percent(quote.taxRate)})` : 'Tax'}${quote.taxEstimated ? html` <span class="muted" data-testid="tax-estimated">estimated</span>` : ''}</td><td data-testid="tax">${money(quote.taxMinor)}</td></tr>
    <tr class="total"><td>Total${every ? ` every ${every}` : ''}</td><td data-testid="total">${money(quote.totalMinor)}</td></tr>
    ${today.paidLater ? html`<tr class="total"><td>Due today</td><td data-testid="due-today">${money(0)}</td></tr>` : ''}
  </table>
  ${
    today.trial
      ? html`<p>Free for ${product.trialDays} days. <span data-testid="then">Then ${money(quote.totalMinor)} every ${every ?? 'period'} from ${longDate(new Date(now.getTime() + product.trialDays * 86_400_000))}.</span> Cancel before then and nothing is charged.</p>`
      : ''
  }
  ${quote.taxName === 'Reverse charge' ? html`<p class="muted" data-testid="reverse-charge">No VAT charged: reverse charge, the buyer accounts for the VAT (Article 196, Council Directive 2006/112/EC).</p>` : ''}
  ${product.type === 'VAULTED' ? html`<p class="muted">Your card is stored with the payment provider so ${offer.product.name} can charge it later.</p>` : ''}`;
}

/** The seller's name, and in the overlay the Close button (src/http/pages/browser/embed.ts tells the vendor's page). */
export function header(view: { vendorName: string }, embedded: boolean): Html {
  return html`<div class="top"><p class="muted">${view.vendorName}</p>${embedded ? html`<button type="button" class="link" id="close" aria-label="Close checkout">Close ✕</button>` : ''}</div>`;
}

const sandboxBadge = (environment: Environment): Html =>
  environment === 'sandbox'
    ? html`<p class="badge" data-testid="sandbox-badge">Sandbox: a test purchase, no real money moves</p>`
    : html``;

export function checkoutForm(view: FormView, embedded: boolean): Html {
  const { offer, quote, prefill } = view;
  const errors = view.fieldErrors;
  const migrating = !!offer.customized?.transactionIdToMigrate;
  return html`${sandboxBadge(view.environment)}${header(view, embedded)}
  <h1>${offer.product.name}</h1>
  ${offer.product.description ? html`<p class="muted">${offer.product.description}</p>` : ''}
  <div class="box"><div id="price" aria-live="polite">${priceLines(offer, quote, view.now, view.locale)}</div>${migrating ? html`<p class="muted" id="migration">This replaces your current subscription, which ends now. What is left of it pays for the first days of this one, so nothing is charged today; the receipt shows the date of the first charge.</p>` : ''}</div>
  ${view.error ? html`<div class="alert bad" role="alert" id="error">${view.error}</div>` : ''}
  ${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}
  <form method="post" id="checkout" novalidate data-quote="${view.quoteUrl}" data-country="${view.country}">
    <input type="hidden" name="token" value="${view.token}">
    <input type="hidden" name="expectedCurrency" value="${quote.currency}">
    <input type="hidden" name="expectedTotal" value="${String(quote.totalMinor)}">
    <input type="hidden" name="appliedCoupon" value="${prefill.coupon ?? ''}">
    ${prefill.payload ? html`<input type="hidden" name="payload" value="${prefill.payload}">` : ''}
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="email" required value="${prefill.email ?? ''}"${view.emailLocked ? html` readonly aria-readonly="true"` : ''}${invalid(errors, 'email')}>${fieldError(errors, 'email')}
    <div class="row">
      <div><label for="firstName">First name</label><input id="firstName" name="firstName" autocomplete="given-name" value="${prefill.firstName ?? ''}"></div>
      <div><label for="lastName">Last name</label><input id="lastName" name="lastName" autocomplete="family-name" value="${prefill.lastName ?? ''}"></div>
    </div>
    <div class="row">
      <div><label for="country">Country</label>${
        view.countryEditable
          ? html`<select id="country" name="country" autocomplete="country"${invalid(errors, 'country')}>${countryOptions(
              view.countries,
            ).map(
              (c) =>
                html`<option value="${c.code}"${c.code === view.country ? html` selected` : ''}>${c.name}</option>`,
            )}</select>`
          : html`<input id="country" value="${countryName(view.country)}" readonly aria-readonly="true">`
      }${fieldError(errors, 'country')}</div>
      <div><label for="zipCode">ZIP / postal code</label><input id="zipCode" name="zipCode" autocomplete="postal-code" value="${prefill.zipCode ?? ''}"${invalid(errors, 'zipCode')}>${fieldError(errors, 'zipCode')}</div>
    </div>
    <details class="business"${prefill.vatId || prefill.businessName || prefill.buyerAddress || errors?.vatId || errors?.businessName || errors?.buyerAddress ? html` open` : ''}><summary>Buying for a business</summary>
      <label for="businessName">Company name</label><input id="businessName" name="businessName" autocomplete="organization" maxlength="200" value="${prefill.businessName ?? ''}"${invalid(errors, 'businessName')}>${fieldError(errors, 'businessName')}
      <label for="buyerAddress">Company address (street, city)</label><textarea id="buyerAddress" name="buyerAddress" autocomplete="street-address" rows="2" maxlength="400"${invalid(errors, 'buyerAddress')}>${prefill.buyerAddress ?? ''}</textarea>${fieldError(errors, 'buyerAddress')}
      <label for="vatId">VAT ID</label><input id="vatId" name="vatId" autocomplete="off" maxlength="24" placeholder="such as DE123456789" value="${prefill.vatId ?? ''}"${invalid(errors, 'vatId')}>${fieldError(errors, 'vatId')}
      <p class="muted">A business in another EU country than the seller's pays no VAT (reverse charge).</p>
    </details>
    <label for="coupon">Coupon (optional)</label>
    <input id="coupon" name="coupon" autocomplete="off" value="${prefill.coupon ?? ''}"${invalid(errors, 'coupon')}>${fieldError(errors, 'coupon')}
    ${cardFields(view)}
    <button type="submit" id="pay"${view.cardEntry.kind === 'none' ? html` disabled` : ''}>${payLabel(offer, quote, view.locale)}</button>
  </form>
  ${view.environment === 'sandbox' && view.cardEntry.kind === 'form' ? sandboxCards() : ''}`;
}

/** The card: opentill's own fields (virtual cards), or the processor's element, which keeps the card away from opentill. */
function cardFields(view: FormView): Html {
  if (!view.needsCard) return html``;
  if (view.cardEntry.kind === 'none')
    // Not shown by the checkout, which shows the closed shop instead (checkout-closed.ts); plain words all the same.
    return html`<div class="alert bad" role="alert" id="no-processor">This shop cannot take payments yet.</div>`;
  if (view.cardEntry.kind === 'browser') {
    return html`<label id="card-label">Card</label>
    <div id="payment-element" class="element" aria-labelledby="card-label"></div>
    <noscript><div class="alert bad">The card field needs JavaScript: it is the payment processor's, so that your card never reaches this shop's server.</div></noscript>
    <div class="alert bad" role="alert" id="card-error" hidden></div>`;
  }
  const errors = view.fieldErrors;
  return html`<label for="cardNumber">Card number <span id="card-brand" class="brand" aria-live="polite"></span></label>
    <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required placeholder="1234 1234 1234 1234" maxlength="23"${invalid(errors, 'cardNumber')}>${fieldError(errors, 'cardNumber')}
    <div class="row">
      <div><label for="cardExpiry">Expiry (MM/YY)</label><input id="cardExpiry" name="cardExpiry" autocomplete="cc-exp" required placeholder="MM/YY"${invalid(errors, 'cardExpiry')}>${fieldError(errors, 'cardExpiry')}</div>
      <div><label for="cardCvc">CVC</label><input id="cardCvc" name="cardCvc" inputmode="numeric" autocomplete="cc-csc" required${invalid(errors, 'cardCvc')}>${fieldError(errors, 'cardCvc')}</div>
    </div>`;
}

function sandboxCards(): Html {
  return html`<div class="box muted" aria-label="Sandbox test cards"><p><strong>Sandbox</strong>: no real money moves. Test cards (any future expiry, any CVC):</p>
  <ul>${Object.entries(SANDBOX_TEST_CARDS).map(([number, card]) => html`<li><code>${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code> ${card.description}</li>`)}</ul></div>`;
}

/** What a receipt says when nothing was paid now: a trial started, a subscription that charges later, or a card saved. */
function startedUnpaid(t: Transaction): Html {
  if (t.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL') return html`Your free trial has started.`;
  if (t.type === 'SUBSCRIPTION')
    return html`Your subscription has started; the first charge is on ${t.nextCharge?.slice(0, 10) ?? ''}.`;
  return html`Your card is saved.`;
}

export function receipt(
  view: {
    vendorName: string;
    offer: Offer;
    transaction: Transaction;
    licence: string | null;
    invoicePath: string | null;
    locale: string;
  },
  embedded: boolean,
): Html {
  const t = view.transaction;
  const total = t.netMinor + t.taxMinor;
  const paidNow = t.lastCharge !== null;
  const money = (minor: number) => formatForBuyer(minor, t.currency, view.locale);
  return html`${sandboxBadge(t.environment)}${header(view, embedded)}
  <h1>Thank you</h1>
  <div class="alert ok" role="status" id="receipt">${
    paidNow ? html`Payment of <strong>${money(total)}</strong> received.` : startedUnpaid(t)
  }</div>
  <div class="box"><table aria-label="Receipt">
    <tr><td>Product</td><td>${t.productName}</td></tr>
    <tr><td>Price</td><td>${money(t.netMinor)}</td></tr>
    <tr><td>${t.taxName || 'Tax'}</td><td>${money(t.taxMinor)}</td></tr>
    <tr class="total"><td>Total</td><td>${money(total)}</td></tr>
    ${t.nextCharge ? html`<tr><td>Next charge</td><td>${t.nextCharge.slice(0, 10)}</td></tr>` : ''}
    ${t.businessName ? html`<tr><td>Company</td><td>${t.businessName}</td></tr>` : ''}
    ${t.buyerVatId ? html`<tr><td>VAT ID</td><td>${t.buyerVatId}</td></tr>` : ''}
    <tr><td>E-mail</td><td>${t.email}</td></tr>
    <tr><td>Reference</td><td><code data-testid="transaction-id">${t.id}</code></td></tr>
  </table>${
    t.reverseCharge
      ? html`<p class="muted" data-testid="reverse-charge">No VAT charged: reverse charge, the buyer accounts for the VAT (Article 196, Council Directive 2006/112/EC).</p>`
      : ''
  }${view.invoicePath ? html`<p><a href="${view.invoicePath}" target="_blank" rel="noopener" data-testid="invoice">Download the invoice (PDF)</a></p>` : ''}</div>
  ${view.licence ? html`<div class="box"><p>Your licence key:</p><p><code data-testid="licence">${view.licence}</code></p></div>` : ''}`;
}

/** The card's fields: never written back into a page. */
const CARD_FIELDS = new Set(['cardNumber', 'cardExpiry', 'cardCvc']);

/**
 * The checkout could not be reached for a moment (its database is away): the form's fields kept as
 * typed, the card's aside, under one button that sends them again. Its token makes that the same
 * purchase; the checkout then asks for the card again.
 */
export function tryAgain(typed: FormBody): Html {
  const kept = Object.entries(typed).filter(
    ([name, value]) => value !== undefined && !CARD_FIELDS.has(name) && name !== 'resumed',
  );
  return html`<h1>Temporarily unavailable</h1>
<div class="box" role="alert"><p>The payment page could not be reached just now, and nothing was charged.</p>
<p>Try again in a moment: what you entered is kept, and you will only need to enter your card again.</p></div>
<form method="post">${kept.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<input type="hidden" name="resumed" value="1"><button type="submit">Try again</button></form>`;
}
