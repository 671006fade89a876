import { purchaseQuantity } from '../catalog/index.ts';
import { invalidInput, invalidState, notFound } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import { switchPlan } from './plan-switches.ts';
import type { PurchaseResult, Purchasing } from './purchase-request.ts';

/**
 * A change of seats on an active subscription (docs/decisions.md §39): a plan switch to the same
 * product at the new quantity, through the migration (§14). More seats start now: nothing is charged
 * today, the value left of the paid period (old net × time left / period) buys time at the new net,
 * so the next charge, of the new quantity, comes earlier. Fewer seats start when the paid period
 * ends: the old quantity runs out what was paid, the new one is charged from then on. Sent again with
 * the same quantity, it answers what the first did (the switch's key is the subscription and quantity).
 */
export interface SeatChange {
  transactionId: string;
  quantity: unknown;
  /** When the customer asks (the management page), the e-mail they signed in with. */
  email?: string | undefined;
}

export interface SeatChangeResult {
  result: PurchaseResult;
  /** NOW: more seats, from now on; PERIOD_END: fewer, from the end of the paid period. */
  effective: 'NOW' | 'PERIOD_END';
  quantity: number;
}

/** A subscription whose seats may change now: active (not in trial, not cancelled). */
export const canChangeSeats = (t: Transaction) =>
  t.type === 'SUBSCRIPTION' && t.status === 'SUBSCRIPTION_STATUS_ACTIVE';

export async function changeSeats(
  purchasing: Purchasing,
  scope: Scope,
  request: SeatChange,
): Promise<SeatChangeResult> {
  const { deps } = purchasing;
  const old = await deps.store.transactions.find(scope, request.transactionId);
  if (!old) throw notFound(`Transaction ${request.transactionId}`);
  if (old.type !== 'SUBSCRIPTION') throw invalidState('Only a subscription changes its seats.');
  const product = await deps.store.products.find(scope, old.productId);
  if (!product?.seats) throw invalidInput(`Product ${old.productId} is not sold per seat.`);
  const quantity = purchaseQuantity(product, request.quantity);
  const email = request.email ?? old.email;
  if (canChangeSeats(old) && quantity === old.quantity)
    throw invalidInput(`Subscription ${old.id} already has ${quantity} seats.`);
  // Not charged yet since an earlier change: what it runs on (a credit, or the old seats' paid period)
  // is not recorded, so a second change now would lose or count it twice.
  if (canChangeSeats(old) && !old.lastCharge && old.nextCharge)
    throw invalidState(
      `Subscription ${old.id} changed its seats or plan and is first charged on ${old.nextCharge.slice(0, 10)}; its seats can change again after that charge.`,
    );
  // Sent again once done, the old one is no longer active: the switch's own attempt answers it (a
  // retry sees what the first did); with none, the migration refuses it as not active.
  const increase = quantity > old.quantity;
  const result = await switchPlan(purchasing, scope, {
    oldId: old.id,
    productId: old.productId,
    email,
    atPeriodEnd: !increase,
    quantity,
  });
  return { result, effective: increase ? 'NOW' : 'PERIOD_END', quantity };
}
