import { canChangeSeats } from '../../../domain/checkout/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Environment, Product, Transaction } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';
import type { PanelRouting } from './panel-routing.ts';
import { transactionActRefused } from './transaction-act-refused.ts';

/**
 * A per-seat subscription's seats on its panel page (docs/decisions.md §39): how many, and a form to
 * change them: more start now (nothing charged today, the next charge comes earlier), fewer when the
 * paid period ends. Nothing for a product not sold per seat or a subscription that cannot change now.
 */
export function seatsSection(
  environment: Environment,
  csrf: string,
  t: Transaction,
  product: Product | undefined,
): Html {
  const seats = product?.seats;
  if (!seats || t.type !== 'SUBSCRIPTION') return html``;
  const heading = html`<h2>Seats</h2><p data-testid="seats-now">${String(t.quantity)} seat${t.quantity === 1 ? '' : 's'}.</p>`;
  if (!canChangeSeats(t) || !t.lastCharge) return heading;
  return html`${heading}<form method="post" action="${panelHref(`/panel/transactions/${t.id}/seats`, environment)}" class="narrow">${csrfField(csrf)}
    <label for="quantity">New number of seats (${String(seats.minQuantity)} to ${String(seats.maxQuantity)})</label><input id="quantity" name="quantity" type="number" inputmode="numeric" min="${String(seats.minQuantity)}" max="${String(seats.maxQuantity)}" required value="${String(t.quantity)}">
    <p class="muted">More seats start now: nothing is charged today, the value left of the paid period brings the next charge forward. Fewer start when the paid period ends. The subscription goes on as a new transaction.</p>
    <div class="inline"><button type="submit" class="outline" data-testid="change-seats">Change the seats</button></div></form>`;
}

/** The panel's seat change: lands on the subscription that goes on, with its notice; sent twice, the first answers. */
export function registerSeatActions(routing: PanelRouting) {
  const { services, action } = routing;
  action(
    '/panel/transactions/:id/seats',
    transactionActRefused(routing, 'Seats'),
    async (_session, scope, form, reply, request) => {
      const id = (request.params as { id: string }).id;
      const { result } = await services.purchases.changeSeats(scope, { transactionId: id, quantity: form.quantity });
      if (result.status !== 'PAID') throw new AppError('INVALID_STATE', result.message);
      return reply.redirect(
        panelHref(`/panel/transactions/${result.transaction.id}`, scope.environment, { done: 'seats-changed' }),
        303,
      );
    },
  );
}
