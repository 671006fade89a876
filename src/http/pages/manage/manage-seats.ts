import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { PortalItem } from '../../../domain/portal/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import type { Visit } from './manage-link.ts';
import { done, render } from './manage-render.ts';

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

/** The seats form sent: the same seat change as the API's; a refusal said in the customer's language. */
export async function changeSeatsAction(
  context: EnvironmentContext,
  reply: FastifyReply,
  visit: Visit,
  form: FormBody,
) {
  // A form sends text: only a whole number is a quantity. An empty field is refused, not the product's
  // minimum (which a quantity left out means to the API).
  const raw = (form.quantity ?? '').trim();
  const quantity = /^\d{1,9}$/.test(raw) ? Number(raw) : null;
  const id = form.transactionId ?? '';
  try {
    if (quantity === null) throw new AppError('INVALID_INPUT', 'Enter a whole number of seats.');
    await context.services.portal.changeOwnSeats(visit.scope, visit.email, id, quantity);
    return done(reply, 'seats');
  } catch (err) {
    if (!(err instanceof AppError) || (err.code !== 'INVALID_INPUT' && err.code !== 'INVALID_STATE')) throw err;
    const items = await context.services.portal.overview(visit.scope, visit.email);
    const offer = items.find((i) => i.transaction.id === id)?.seats;
    if (!offer) throw err;
    return render(context, reply, visit, 400, (tr) => ({
      error: offer.waitsFor
        ? tr.t('manage.seatsWait', { quantity: offer.quantity, date: tr.date(offer.waitsFor) })
        : tr.t('manage.seatsRange', {
            min: offer.minQuantity,
            max: offer.maxQuantity,
            quantity: offer.quantity,
          }),
    }));
  }
}
