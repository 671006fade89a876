import type { Offer } from '../../../domain/catalog/index.ts';
import type { PriceQuote } from '../../../domain/tax/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';

// The checkout's seats (docs/decisions.md §39): the number field of a per-seat product, and its words.

/** The range the buyer chooses from, or undefined when there is no choice (not per seat, or a link's fixed quantity). */
export function seatRange(offer: Offer): { min: number; max: number } | undefined {
  const seats = offer.product.seats;
  if (!seats || offer.customized?.quantity) return undefined;
  return { min: seats.minQuantity, max: seats.maxQuantity };
}

/** What to fix when the quantity is out of the product's range, in the buyer's words. */
export function quantityMessage(tr: Translator, offer: Offer): string {
  const range = seatRange(offer) ?? { min: 1, max: 1 };
  return tr.t('checkout.fieldQuantity', { min: range.min, max: range.max });
}

/** The seats field: a number from the product's minimum to its maximum, changing the price as it changes. */
export function seatField(tr: Translator, offer: Offer, quote: PriceQuote, error: string | Html | undefined): Html {
  const range = seatRange(offer);
  if (!range) return html``;
  const value = String(quote.quantity ?? range.min);
  return html`<label for="quantity">${tr.t('checkout.quantity')}</label>
    <input id="quantity" name="quantity" type="number" inputmode="numeric" min="${String(range.min)}" max="${String(range.max)}" step="1" required value="${value}"${error ? html` aria-invalid="true" aria-describedby="quantity-error" autofocus` : ''}>${error ? html`<p class="field-error" id="quantity-error">${error}</p>` : ''}`;
}

/** "8 seats × $10.00": the price line of a per-seat purchase, its unit the list price over the quantity. */
export function seatsLine(tr: Translator, offer: Offer, quote: PriceQuote): Html {
  if (!offer.product.seats) return html``;
  const quantity = quote.quantity ?? 1;
  const unit = (quote.netMinor + quote.discountMinor) / quantity;
  return html`<tr><td data-testid="seats">${tr.t('checkout.seatsTimesUnit', { quantity, price: tr.money(unit, quote.currency) })}</td><td></td></tr>`;
}
