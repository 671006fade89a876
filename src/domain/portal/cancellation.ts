import type { Scope, Transaction } from '../model.ts';
import { ownTransaction } from './own-transactions.ts';
import type { PortalDeps } from './portal-deps.ts';

const CANCELLABLE: Transaction['status'][] = [
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'VAULTED_STATUS_ACTIVE',
];

export const canCancel = (t: Transaction) => CANCELLABLE.includes(t.status);

/** The customer cancels their own subscription or vaulted method (whoCanceled CUSTOMER). */
export async function cancel(
  deps: Pick<PortalDeps, 'store' | 'transactions'>,
  scope: Scope,
  email: string,
  id: string,
) {
  await ownTransaction(deps, scope, email, id);
  return deps.transactions.cancel(scope, id, 'CUSTOMER');
}
