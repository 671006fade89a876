import type { Offer } from '../../../domain/catalog/index.ts';
import type { LastingDiscount } from '../../../domain/checkout/index.ts';
import type { CardEntry } from '../../../domain/payments/index.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PriceQuote } from '../../../domain/tax/index.ts';
import { SANDBOX_TEST_CARDS } from '../../../domain/payments/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { countryName, countryOptions } from './checkout-countries.ts';
import { payLabel, priceLines } from './checkout-price-lines.ts';
import { seatField } from './checkout-seats.ts';
import { productHeading } from './product-heading.ts';
import type { CheckoutPrefill } from './checkout-url.ts';

/** What each field needs, the same words from the page's script and from the server. */
export { fieldMessages, type FieldMessages } from './field-messages.ts';

// The checkout's form and its "try again" page, in the buyer's language (src/i18n/catalogs/checkout).

/** The fields a failed submit can mark, each with what to fix. */
export type FieldName =
  | 'email'
  | 'country'
  | 'zipCode'
  | 'businessName'
  | 'buyerAddress'
  | 'vatId'
  | 'coupon'
  | 'quantity'
  | 'cardNumber'
  | 'cardExpiry'
  | 'cardCvc';
export type FieldErrors = Partial<Record<FieldName, string | Html>>;
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

export interface FormView {
  environment: Environment;
  vendorName: string;
  offer: Offer;
  quote: PriceQuote;
  /** A subscription's coupon beyond today (docs/decisions.md §38). */
  lasting?: LastingDiscount | null;
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
  error?: string | Html | undefined;
  notice?: string | undefined;
  fieldErrors?: FieldErrors | undefined;
}

/** The seller's name, and in the overlay the Close button (src/http/pages/browser/embed.ts tells the vendor's page). */
export function header(tr: Translator, view: { vendorName: string }, embedded: boolean): Html {
  return html`<div class="top"><p class="muted">${view.vendorName}</p>${embedded ? html`<button type="button" class="link" id="close" aria-label="${tr.t('checkout.closeLabel')}">${tr.t('checkout.close')} ✕</button>` : ''}</div>`;
}

export const sandboxBadge = (tr: Translator, environment: Environment): Html =>
  environment === 'sandbox'
    ? html`<p class="badge" data-testid="sandbox-badge">${tr.t('checkout.sandboxBadge')}</p>`
    : html``;

export function checkoutForm(tr: Translator, view: FormView, embedded: boolean): Html {
  const { offer, quote, prefill } = view;
  const errors = view.fieldErrors;
  const migrating = !!offer.customized?.transactionIdToMigrate;
  const label = (key: string) => tr.t(`checkout.${key}`);
  return html`${sandboxBadge(tr, view.environment)}${header(tr, view, embedded)}
  ${productHeading(view.environment, offer.product)}
  <div class="box"><div id="price" aria-live="polite">${priceLines(tr, offer, quote, view.now, view.lasting)}</div>${migrating ? html`<p class="muted" id="migration">${label('migration')}</p>` : ''}</div>
  ${view.error ? html`<div class="alert bad" role="alert" id="error">${view.error}</div>` : ''}
  ${view.notice ? html`<div class="alert ok" role="status">${view.notice}</div>` : ''}
  <form method="post" id="checkout" novalidate data-quote="${view.quoteUrl}" data-country="${view.country}">
    <input type="hidden" name="token" value="${view.token}">
    <input type="hidden" name="expectedCurrency" value="${quote.currency}">
    <input type="hidden" name="expectedTotal" value="${String(quote.totalMinor)}">
    <input type="hidden" name="appliedCoupon" value="${prefill.coupon ?? ''}">
    ${seatField(tr, offer, quote, errors?.quantity)}
    ${prefill.payload ? html`<input type="hidden" name="payload" value="${prefill.payload}">` : ''}
    <label for="email">${label('email')}</label>
    <input id="email" name="email" type="email" autocomplete="email" required value="${prefill.email ?? ''}"${view.emailLocked ? html` readonly aria-readonly="true"` : ''}${invalid(errors, 'email')}>${fieldError(errors, 'email')}
    <div class="row">
      <div><label for="firstName">${label('firstName')}</label><input id="firstName" name="firstName" autocomplete="given-name" value="${prefill.firstName ?? ''}"></div>
      <div><label for="lastName">${label('lastName')}</label><input id="lastName" name="lastName" autocomplete="family-name" value="${prefill.lastName ?? ''}"></div>
    </div>
    <div class="row">
      <div><label for="country">${label('country')}</label>${
        view.countryEditable
          ? html`<select id="country" name="country" autocomplete="country"${invalid(errors, 'country')}>${countryOptions(
              tr,
              view.countries,
            ).map(
              (c) =>
                html`<option value="${c.code}"${c.code === view.country ? html` selected` : ''}>${c.name}</option>`,
            )}</select>`
          : html`<input id="country" value="${countryName(tr, view.country)}" readonly aria-readonly="true">`
      }${fieldError(errors, 'country')}</div>
      <div><label for="zipCode">${label('zipCode')}</label><input id="zipCode" name="zipCode" autocomplete="postal-code" value="${prefill.zipCode ?? ''}"${invalid(errors, 'zipCode')}>${fieldError(errors, 'zipCode')}</div>
    </div>
    <details class="business"${prefill.vatId || prefill.businessName || prefill.buyerAddress || errors?.vatId || errors?.businessName || errors?.buyerAddress ? html` open` : ''}><summary>${label('business')}</summary>
      <label for="businessName">${label('companyName')}</label><input id="businessName" name="businessName" autocomplete="organization" maxlength="200" value="${prefill.businessName ?? ''}"${invalid(errors, 'businessName')}>${fieldError(errors, 'businessName')}
      <label for="buyerAddress">${label('companyAddress')}</label><textarea id="buyerAddress" name="buyerAddress" autocomplete="street-address" rows="2" maxlength="400"${invalid(errors, 'buyerAddress')}>${prefill.buyerAddress ?? ''}</textarea>${fieldError(errors, 'buyerAddress')}
      <label for="vatId">${label('vatId')}</label><input id="vatId" name="vatId" autocomplete="off" maxlength="24" placeholder="${tr.t('checkout.vatIdExample', { example: 'DE123456789' })}" value="${prefill.vatId ?? ''}"${invalid(errors, 'vatId')}>${fieldError(errors, 'vatId')}
      <p class="muted">${label('businessNote')}</p>
    </details>
    <label for="coupon">${label('coupon')}</label>
    <input id="coupon" name="coupon" autocomplete="off" value="${prefill.coupon ?? ''}"${invalid(errors, 'coupon')}>${fieldError(errors, 'coupon')}
    ${cardFields(tr, view)}
    <button type="submit" id="pay"${view.cardEntry.kind === 'none' ? html` disabled` : ''}>${payLabel(tr, offer, quote)}</button>
  </form>
  ${view.environment === 'sandbox' && view.cardEntry.kind === 'form' ? sandboxCards(tr) : ''}`;
}

/** The card: opentill's own fields (virtual cards), or the processor's element, which keeps the card away from opentill. */
function cardFields(tr: Translator, view: FormView): Html {
  if (!view.needsCard) return html``;
  const label = (key: string) => tr.t(`checkout.${key}`);
  if (view.cardEntry.kind === 'none')
    // Not shown by the checkout, which shows the closed shop instead (checkout-closed.ts); plain words all the same.
    return html`<div class="alert bad" role="alert" id="no-processor">${label('noProcessor')}</div>`;
  if (view.cardEntry.kind === 'browser') {
    return html`<label id="card-label">${label('card')}</label>
    <div id="payment-element" class="element" aria-labelledby="card-label"></div>
    <noscript><div class="alert bad">${label('cardNeedsScript')}</div></noscript>
    <div class="alert bad" role="alert" id="card-error" hidden></div>`;
  }
  const errors = view.fieldErrors;
  return html`<label for="cardNumber">${label('cardNumber')} <span id="card-brand" class="brand" aria-live="polite"></span></label>
    <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required placeholder="1234 1234 1234 1234" maxlength="23" dir="ltr"${invalid(errors, 'cardNumber')}>${fieldError(errors, 'cardNumber')}
    <div class="row">
      <div><label for="cardExpiry">${label('cardExpiry')}</label><input id="cardExpiry" name="cardExpiry" autocomplete="cc-exp" required placeholder="${label('cardExpiryPlaceholder')}" dir="ltr"${invalid(errors, 'cardExpiry')}>${fieldError(errors, 'cardExpiry')}</div>
      <div><label for="cardCvc">${label('cardCvc')}</label><input id="cardCvc" name="cardCvc" inputmode="numeric" autocomplete="cc-csc" required dir="ltr"${invalid(errors, 'cardCvc')}>${fieldError(errors, 'cardCvc')}</div>
    </div>`;
}

/** The sandbox's test cards, for the vendor trying their own checkout; the cards' descriptions stay English (their reader is the vendor). */
function sandboxCards(tr: Translator): Html {
  return html`<div class="box muted" aria-label="${tr.t('checkout.sandboxCardsLabel')}"><p>${tr.html('checkout.sandboxCards', {}, { b: (c) => html`<strong>${c}</strong>` })}</p>
  <ul>${Object.entries(SANDBOX_TEST_CARDS).map(([number, card]) => html`<li><code dir="ltr">${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code> <span lang="en" dir="ltr">${card.description}</span></li>`)}</ul></div>`;
}

/** The card's fields: never written back into a page. */
const CARD_FIELDS = new Set(['cardNumber', 'cardExpiry', 'cardCvc']);

/**
 * The checkout could not be reached for a moment (its database is away): the form's fields kept as
 * typed, the card's aside, under one button that sends them again. Its token makes that the same
 * purchase; the checkout then asks for the card again.
 */
export function tryAgain(tr: Translator, typed: FormBody): Html {
  const kept = Object.entries(typed).filter(
    ([name, value]) => value !== undefined && !CARD_FIELDS.has(name) && name !== 'resumed',
  );
  return html`<h1>${tr.t('checkout.unavailableTitle')}</h1>
<div class="box" role="alert"><p>${tr.t('checkout.unavailableText')}</p>
<p>${tr.t('checkout.unavailableKept')}</p></div>
<form method="post">${kept.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<input type="hidden" name="resumed" value="1"><button type="submit">${tr.t('checkout.tryAgain')}</button></form>`;
}
