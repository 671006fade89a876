import { AppError } from '../../../domain/errors.ts';
import type { Scope } from '../../../domain/model.ts';
import type { Services } from '../../../services.ts';

/**
 * Wrong coupon codes are limited per address and product (docs/decisions.md §14): after
 * `COUPON_FAILURES_ALLOWED` codes that do not exist or cannot be used, within `COUPON_WINDOW_MS`,
 * that address gets no answer about any code of that product until the oldest failure is that old.
 * A code that works never counts. Blocked, a right code is not looked at either: otherwise the
 * block would still answer guesses.
 *
 * The counters live in this process's memory, one set per app (per `Services`), shared by the
 * checkout page and the public API; they reset when the process restarts and are not shared
 * between processes.
 */
export const COUPON_FAILURES_ALLOWED = 10;
export const COUPON_WINDOW_MS = 10 * 60_000;
/** Past this many tracked (address, product) pairs, the oldest are forgotten: memory stays bounded. */
const MAX_TRACKED = 50_000;

export type CouponVerdict =
  | { status: 'valid' }
  | { status: 'invalid'; message: string }
  | { status: 'blocked'; retryAfterSeconds: number; message: string };

interface CouponAttempts {
  /** Seconds until this address may try codes of this product again; 0 when it may now. */
  blockedFor(address: string, productId: string, now: number): number;
  fail(address: string, productId: string, now: number): void;
}

function couponAttempts(): CouponAttempts {
  /** Per `address product`: the times of its failures inside the window, oldest first. */
  const failures = new Map<string, number[]>();
  const live = (key: string, now: number) => {
    const times = (failures.get(key) ?? []).filter((at) => at > now - COUPON_WINDOW_MS);
    if (times.length) failures.set(key, times);
    else failures.delete(key);
    return times;
  };
  return {
    blockedFor(address, productId, now) {
      const times = live(`${address} ${productId}`, now);
      return times.length < COUPON_FAILURES_ALLOWED
        ? 0
        : Math.max(1, Math.ceil((times[times.length - COUPON_FAILURES_ALLOWED]! + COUPON_WINDOW_MS - now) / 1000));
    },
    fail(address, productId, now) {
      const key = `${address} ${productId}`;
      const times = live(key, now);
      failures.delete(key); // re-inserted last: Map order is then oldest activity first
      failures.set(key, [...times, now].slice(-COUPON_FAILURES_ALLOWED));
      if (failures.size > MAX_TRACKED) {
        for (const old of failures.keys()) {
          failures.delete(old);
          if (failures.size <= MAX_TRACKED * 0.9) break;
        }
      }
    },
  };
}

const perApp = new WeakMap<Services, CouponAttempts>();

/**
 * Whether the customer at `address` may use `code` on this product (the product itself, not a
 * customized offer of it, so that many links of one product share one limit). Counts the failure.
 */
export async function vetCoupon(
  services: Services,
  address: string,
  scope: Scope,
  productId: string,
  code: string,
): Promise<CouponVerdict> {
  let attempts = perApp.get(services);
  if (!attempts) perApp.set(services, (attempts = couponAttempts()));
  const now = services.clock.real().getTime();
  const wait = attempts.blockedFor(address, productId, now);
  if (wait > 0) {
    const minutes = Math.ceil(wait / 60);
    return {
      status: 'blocked',
      retryAfterSeconds: wait,
      message: `Too many coupon codes that do not work were tried; try a coupon again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    };
  }
  try {
    await services.coupons.redeemable(scope, productId, code);
    return { status: 'valid' };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'INVALID_INPUT') throw err;
    attempts.fail(address, productId, now);
    return { status: 'invalid', message: err.message };
  }
}

/** For the API: a coupon that may not be used is an error, 400, or 429 with Retry-After while the address is blocked. */
export async function requireUsableCoupon(
  services: Services,
  address: string,
  scope: Scope,
  productId: string,
  code: string,
): Promise<void> {
  const verdict = await vetCoupon(services, address, scope, productId, code);
  if (verdict.status === 'blocked')
    throw new AppError('RATE_LIMITED', verdict.message, { retryAfterSeconds: verdict.retryAfterSeconds });
  if (verdict.status === 'invalid') throw new AppError('INVALID_INPUT', verdict.message);
}
