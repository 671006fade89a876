import { periodStart } from './billing-period.ts';
import type { ChargeFrequency, Transaction } from '../model.ts';

/**
 * Upgrade or downgrade of an active subscription (transactionIdToMigrate, docs/decisions.md §14): the value
 * left on the old subscription, (old net price per period) x (time left / period length), buys
 * time on the new one at its price, so the new subscription's first charge is delayed by
 * (value left / new net price per period) x (new period length). Values are compared in USD, the
 * one currency every price has; the arithmetic is exact (BigInt), the delay rounded down to the ms.
 */
export interface Proration {
  /** USD minor units left on the old subscription, rounded down. */
  valueLeftUsdMinor: number;
  delayMs: number;
  firstCharge: Date;
}

export function prorate(
  old: Pick<Transaction, 'netUsdMinor' | 'lastCharge' | 'nextCharge'>,
  next: { netUsdMinor: number; chargeFrequency: ChargeFrequency },
  now: Date,
): Proration {
  const none = { valueLeftUsdMinor: 0, delayMs: 0, firstCharge: now };
  if (!old.lastCharge || !old.nextCharge) return none;
  const start = Date.parse(old.lastCharge);
  const end = Date.parse(old.nextCharge);
  const left = BigInt(Math.max(0, end - Math.max(start, now.getTime())));
  const period = BigInt(end - start);
  if (period <= 0n || left === 0n) return none;
  const valueLeftUsdMinor = Number((BigInt(old.netUsdMinor) * left) / period);
  // A free new subscription has nothing to delay: it starts at once.
  if (next.netUsdMinor <= 0) return { valueLeftUsdMinor, delayMs: 0, firstCharge: now };
  const newPeriod = BigInt(periodStart(now, next.chargeFrequency, 1).getTime() - now.getTime());
  const delayMs = Number((BigInt(old.netUsdMinor) * left * newPeriod) / (period * BigInt(next.netUsdMinor)));
  return { valueLeftUsdMinor, delayMs, firstCharge: new Date(now.getTime() + delayMs) };
}
