import { invalidState } from '../errors.ts';
import type { Scope, Transaction, WhoCanceled } from '../model.ts';
import type { SeenLedger } from '../payments/index.ts';
import { lockUnchanged, type TransactionDeps } from './transaction-lookups.ts';
import { cancelAroundPause } from '../billing/index.ts';

export type CancelOutcome = { transaction: Transaction; changed: boolean };

/**
 * What the customer chose in the portal (docs/decisions.md §34): `now` ends an active subscription at
 * once instead of at the end of its paid period; `reason` is kept for the vendor. The API sends neither.
 */
export interface CancelChoice {
  now?: boolean;
  reason?: string | null;
}

/** A reason as typed, kept to what the panel shows: one paragraph of at most 500 characters, no control characters. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;
const reasonOf = (typed: string | null | undefined) => typed?.replace(CONTROL, ' ').trim().slice(0, 500) || null;

/**
 * Subscription: cancelled at the end of the paid period (CANCELLED_PENDING), or at once in a
 * trial. Vaulted: deactivated. Already ended: nothing changes, and that is not an error.
 */
export async function cancelTransaction(
  deps: TransactionDeps,
  scope: Scope,
  id: string,
  who: WhoCanceled,
  seen?: SeenLedger,
  choice: CancelChoice = {},
): Promise<CancelOutcome> {
  return deps.store.transaction(async (repos) => {
    const locked = await lockUnchanged(repos, scope, id, seen);
    const at = deps.clock.now(scope).toISOString();
    if (locked.type === 'ONETIME') {
      throw invalidState(`A one-time payment cannot be cancelled (status ${locked.status}); refund it instead.`);
    }
    const ended: Transaction['status'][] = [
      'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
      'SUBSCRIPTION_STATUS_CANCELLED',
      'VAULTED_STATUS_INACTIVE',
      'TRANSACTION_STATUS_REFUNDED',
    ];
    if (ended.includes(locked.status)) return { transaction: locked, changed: false };
    // A pause in effect leaves no paid period to end with: the subscription ends now (docs/decisions.md §41).
    const { transaction, endsNow } = await cancelAroundPause(repos, scope, locked, new Date(at));
    if (transaction.status === 'TRANSACTION_STATUS_PENDING') {
      throw invalidState(`Transaction ${id} is pending payment and cannot be cancelled yet.`);
    }
    let patch: Partial<Transaction>;
    const reason = reasonOf(choice.reason);
    const kept = reason ? { cancelReason: reason } : {};
    if (transaction.type === 'VAULTED') {
      patch = { status: 'VAULTED_STATUS_INACTIVE', whoCanceled: who, ...kept };
      await repos.transactions.update(scope, id, patch, { flag: 'CHANGED_STATUS_VAULTED_DEACTIVATION', at });
      return {
        transaction: { ...transaction, ...patch, changeFlag: 'CHANGED_STATUS_VAULTED_DEACTIVATION' },
        changed: true,
      };
    }
    patch =
      transaction.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' || choice.now || endsNow
        ? { status: 'SUBSCRIPTION_STATUS_CANCELLED', whoCanceled: who, nextCharge: null, ...kept }
        : { status: 'SUBSCRIPTION_STATUS_CANCELLED_PENDING', whoCanceled: who, ...kept };
    await repos.transactions.update(scope, id, patch, { flag: 'CHANGED_STATUS_CANCELLED', at });
    // Access ends with the paid period; a trial, or a cancellation the customer asked to take effect now, ends now.
    const accessEnds = patch.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' ? transaction.nextCharge : null;
    await deps.emails?.record(repos, [
      { kind: 'CANCELLED', scope, key: `CANCELLED:${id}`, facts: { transactionId: id, date: accessEnds } },
    ]);
    return { transaction: { ...transaction, ...patch, changeFlag: 'CHANGED_STATUS_CANCELLED' }, changed: true };
  });
}
