import { periodStart } from '../billing/index.ts';
import type { ChangeFlag, Transaction, TransactionStatus } from '../model.ts';

/** Where a new purchase starts: its status, its change flag, and its first charge after this one. */
export type Opening = { status: TransactionStatus; flag: ChangeFlag; nextCharge: string | null };

export function openingState(
  type: Transaction['type'],
  inTrial: boolean,
  trialDays: number,
  frequency: Transaction['chargeFrequency'],
  now: Date,
): Opening {
  if (type === 'ONETIME')
    return { status: 'ONE_TIME_PAYMENT_STATUS_PAID', flag: 'CHANGED_STATUS_NEW', nextCharge: null };
  if (type === 'VAULTED')
    return { status: 'VAULTED_STATUS_ACTIVE', flag: 'CHANGED_STATUS_VAULTED_ACTIVATION', nextCharge: null };
  if (inTrial) {
    return {
      status: 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
      flag: 'CHANGED_STATUS_TRIAL',
      nextCharge: new Date(now.getTime() + trialDays * 86_400_000).toISOString(),
    };
  }
  return {
    status: 'SUBSCRIPTION_STATUS_ACTIVE',
    flag: 'CHANGED_STATUS_NEW',
    nextCharge: periodStart(now, frequency, 1).toISOString(),
  };
}

/**
 * A new subscription's schedule. Paid now: period 0 started now and period 1 is next. Trial or
 * migration (`paidLater`): nothing paid yet, and period 0 starts at the first charge.
 */
export function firstBilling(
  type: Transaction['type'],
  nextCharge: string | null,
  paidLater: boolean,
  now: Date,
): Transaction['billing'] {
  if (type !== 'SUBSCRIPTION' || !nextCharge) return undefined;
  if (paidLater) return { anchor: nextCharge, period: 0, failedAttempts: 0 };
  return { anchor: now.toISOString(), period: 1, failedAttempts: 0 };
}
