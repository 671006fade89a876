import { pauseStateOf } from '../billing/index.ts';
import { canChangeSeats, type SeatChangeResult } from '../checkout/index.ts';
import { invalidState } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import { ownTransaction } from './own-transactions.ts';
import type { PortalDeps } from './portal-deps.ts';

/** What the management page offers on a per-seat subscription's seats (docs/decisions.md §39). */
export interface SeatOffer {
  quantity: number;
  minQuantity: number;
  maxQuantity: number;
  /** Fewer seats start then: the end of the paid period. */
  periodEnd: string;
  /** Changed since its last charge: seats change again after the charge on this date; null: they may now. */
  waitsFor: string | null;
}

/**
 * The seats control of a subscription, where the vendor lets customers change seats: an active,
 * unpaused subscription of a product still sold per seat; null for anything else.
 */
export async function seatOffer(
  deps: Pick<PortalDeps, 'store' | 'clock'>,
  scope: Scope,
  t: Transaction,
): Promise<SeatOffer | null> {
  if (!canChangeSeats(t) || !t.nextCharge) return null;
  // A paused subscription has no period to prorate against, as for a plan switch (docs/decisions.md §41).
  if (pauseStateOf(t, deps.clock.now(scope)) !== 'none') return null;
  const product = await deps.store.products.find(scope, t.productId);
  if (!product?.seats || product.archivedAt) return null;
  if (!(await deps.store.portal.customerSeats(scope.vendorId))) return null;
  return {
    quantity: t.quantity,
    minQuantity: product.seats.minQuantity,
    maxQuantity: product.seats.maxQuantity,
    periodEnd: t.nextCharge,
    // The seat change's own rule (seat-changes.ts): not charged since a change, it waits for that charge.
    waitsFor: t.lastCharge ? null : t.nextCharge,
  };
}

/**
 * The customer's own seat change, where the vendor allows it: the same seat change as the API's and the
 * panel's (more now, fewer at the period's end, a second one refused before the next charge). Sent
 * again, it answers what the first did.
 */
export async function changeOwnSeats(
  deps: Pick<PortalDeps, 'store' | 'purchases'>,
  scope: Scope,
  email: string,
  id: string,
  quantity: unknown,
): Promise<SeatChangeResult> {
  const transaction = await ownTransaction(deps, scope, email, id);
  if (!(await deps.store.portal.customerSeats(scope.vendorId)))
    throw invalidState('The seller does not let customers change their seats here.');
  return deps.purchases.changeSeats(scope, { transactionId: transaction.id, quantity, email });
}
