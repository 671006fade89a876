import { AppError } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import { ownTransaction } from './own-transactions.ts';
import type { PortalDeps } from './portal-deps.ts';

const CANCELLABLE: Transaction['status'][] = [
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'VAULTED_STATUS_ACTIVE',
];

export const canCancel = (t: Transaction) => CANCELLABLE.includes(t.status);

/** What the customer chose on the confirmation page: when it ends, and why (optional). */
export interface PortalCancel {
  now?: boolean;
  reason?: string | null;
}

/**
 * The customer cancels their own subscription or vaulted method (whoCanceled CUSTOMER), at the end
 * of the paid period unless they chose now and the vendor lets customers cancel at once
 * (docs/decisions.md §34). A second cancel changes nothing.
 */
export async function cancel(
  deps: Pick<PortalDeps, 'store' | 'transactions'>,
  scope: Scope,
  email: string,
  id: string,
  choice: PortalCancel = {},
) {
  const transaction = await ownTransaction(deps, scope, email, id);
  const now = choice.now === true && transaction.status === 'SUBSCRIPTION_STATUS_ACTIVE';
  if (now && !(await deps.store.portal.cancelNow(scope.vendorId)))
    throw new AppError('INVALID_INPUT', 'This seller ends subscriptions at the end of the paid period only.');
  return deps.transactions.cancel(scope, id, 'CUSTOMER', undefined, { now, reason: choice.reason ?? null });
}

/** Whether the vendor lets its customers end a subscription at once, not only at the period's end. */
export const cancelNowAllowed = (deps: Pick<PortalDeps, 'store'>, vendorId: string) =>
  deps.store.portal.cancelNow(vendorId);
