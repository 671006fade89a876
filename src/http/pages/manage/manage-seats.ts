import type { PortalItem } from '../../../domain/portal/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';

/**
 * A per-seat subscription's seats on the management page, where the vendor allows it (docs/decisions.md
 * §39): a number field in the product's range, or, changed since its last charge, when it may change again.
 */
export function seatsBlock(
  entry: PortalItem,
  view: { tr: Translator; formToken: string; hidden: (formToken: string, action: string, id: string) => Html },
): Html {
  const offer = entry.seats;
  if (!offer) return html``;
  const { tr } = view;
  const id = entry.transaction.id;
  if (offer.waitsFor)
    return html`<p class="muted" data-testid="seats-wait">${tr.t('manage.seatsWait', { quantity: offer.quantity, date: tr.date(offer.waitsFor) })}</p>`;
  return html`<form method="post" class="seats" data-testid="seats-form">${view.hidden(view.formToken, 'seats', id)}
    <label for="seats-${id}">${tr.t('manage.seatsLabel')}</label>
    <span class="seat-row"><input id="seats-${id}" name="quantity" type="number" inputmode="numeric" min="${offer.minQuantity}" max="${offer.maxQuantity}" step="1" value="${offer.quantity}" required aria-describedby="seats-hint-${id}">
    <button type="submit" data-testid="change-seats">${tr.t('manage.seatsButton')}</button></span>
    <p class="muted" id="seats-hint-${id}">${tr.t('manage.seatsHint', { min: offer.minQuantity, max: offer.maxQuantity, date: tr.date(offer.periodEnd) })}</p>
  </form>`;
}
