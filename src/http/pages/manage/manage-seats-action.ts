import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import type { Visit } from './manage-link.ts';
import { done, render } from './manage-render.ts';

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
