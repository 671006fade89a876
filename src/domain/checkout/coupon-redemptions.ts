import { customerCap } from '../catalog/index.ts';
import { AppError } from '../errors.ts';
import type { AttemptOf, Repositories } from '../ports.ts';
import type { PurchaseDeps } from './purchase-request.ts';

/*
 * A coupon's redemption is taken with the purchase's attempt, in the database transaction that
 * records it, before the processor is asked (docs/decisions.md §38): a buyer is never charged for a
 * discount then refused. The counters are raised by conditional UPDATEs under their caps, so of 20
 * checkouts at once on a coupon capped at 5, five record an attempt and the rest are refused having
 * charged nothing. The redemption is HELD while the payment is open; the booking marks it USED; a
 * decline or a voided attempt (a session abandoned, a payment the processor never had) gives it back.
 */

/** Records a purchase's attempt and, when it is fresh and has a coupon, holds the coupon's redemption with it. */
export async function recordPurchaseAttempt(
  deps: Pick<PurchaseDeps, 'store' | 'protocol' | 'clock'>,
  attempt: AttemptOf<'PURCHASE'>,
): Promise<{ attempt: AttemptOf<'PURCHASE'>; fresh: boolean }> {
  const { transaction } = attempt.plan;
  const couponId = transaction.couponId;
  if (!couponId) return deps.protocol.record(attempt);
  return deps.store.transaction(async (repos) => {
    const recorded = await repos.chargeAttempts.record(attempt);
    if (!recorded.fresh) return recorded;
    const coupon = await repos.coupons.find(attempt.scope, couponId);
    if (!coupon) throw new Error(`coupon ${couponId} vanished`);
    const held = await repos.coupons.hold({
      couponId,
      transactionId: transaction.id,
      email: transaction.email,
      maxPerCustomer: customerCap(coupon),
      at: deps.clock.now().toISOString(),
    });
    // Thrown, the attempt's insert is rolled back with it: nothing recorded, nothing charged.
    if (held === 'USED_UP') throw new AppError('INVALID_INPUT', `The coupon "${coupon.code}" has been used up.`);
    if (held === 'CUSTOMER_USED_UP')
      throw new AppError(
        'INVALID_INPUT',
        coupon.firstPurchaseOnly
          ? `The coupon "${coupon.code}" is for a first purchase only.`
          : `The coupon "${coupon.code}" has already been used with this e-mail address.`,
      );
    return recorded;
  });
}

/** The held redemption of a booked purchase is used: it stays counted. */
export async function useRedemption(repos: Repositories, attempt: AttemptOf<'PURCHASE'>, at: Date): Promise<void> {
  if (attempt.plan.transaction.couponId) await repos.coupons.use(attempt.plan.transaction.id, at.toISOString());
}

/** The held redemption of a purchase whose payment failed is given back, once. */
export async function releaseRedemption(repos: Repositories, attempt: AttemptOf<'PURCHASE'>, at: Date): Promise<void> {
  if (attempt.plan.transaction.couponId) await repos.coupons.release(attempt.plan.transaction.id, at.toISOString());
}
