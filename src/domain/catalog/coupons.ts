import type { Clock } from '../clock.ts';
import { AppError, invalidInput, notFound } from '../errors.ts';
import type { ExchangeRates } from '../money/index.ts';
import { newId } from '../ids.ts';
import type { Coupon, Scope } from '../model.ts';
import { formatDecimal, parseDecimal } from '../money/index.ts';
import type { Store } from '../ports.ts';
import { parsePriceList } from '../money/index.ts';
import { couponTerms, type CouponTermsInput } from './coupon-terms.ts';

export { customerCap, ONCE_COUPON, type CouponTermsInput } from './coupon-terms.ts';
// Where the checkout has always found them; they live with the one pricing function.
export { discountedNet, discountsPeriod } from '../tax/index.ts';

/**
 * Discount codes of a product: a percentage off, or a fixed amount off (USD required, other
 * currencies converted from it when not given), optionally starting later and expiring. A discount
 * lowers the net price before tax, never below zero, for the payments its duration covers; its caps
 * and restrictions are in coupon-terms.ts (docs/decisions.md §38).
 */
export interface NewCoupon extends CouponTermsInput {
  productId: string;
  code: string;
  percentOff?: string | number | undefined;
  /** Prices-style list of {currency, value}: the amount off in each currency. */
  amountsOff?: unknown;
  expiresAt?: string | undefined;
}

const CODE = /^[A-Z0-9][A-Z0-9_-]{2,31}$/;

export const normalizeCouponCode = (code: string) => code.trim().toUpperCase();

type CouponDeps = { store: Store; clock: Clock; rates: ExchangeRates };

/** A new coupon, its discount and terms checked; its code unique on every product it applies to. */
async function createCoupon(deps: CouponDeps, scope: Scope, input: NewCoupon): Promise<Coupon> {
  const code = normalizeCouponCode(input.code);
  if (!CODE.test(code))
    throw invalidInput('A coupon code has 3 to 32 letters, digits, "-" or "_", starting with a letter or digit.');
  const hasPercent = input.percentOff !== undefined;
  if (hasPercent === (input.amountsOff !== undefined))
    throw invalidInput('Give a coupon either a percentage off or amounts off, not both.');
  let percentOff: string | null = null;
  let amountsOff: Record<string, number> = {};
  if (hasPercent) {
    const percent = parseDecimal(input.percentOff!);
    if (percent.scale > 2 || percent.units <= 0n || percent.units > 100n * 10n ** BigInt(percent.scale)) {
      throw invalidInput('percentOff must be more than 0 and at most 100, with at most two decimals.');
    }
    percentOff = formatDecimal(percent);
  } else {
    amountsOff = parsePriceList(input.amountsOff);
    if (Object.values(amountsOff).some((minor) => minor === 0))
      throw invalidInput('An amount off must be more than zero.');
  }
  const now = deps.clock.now();
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined) {
    const at = new Date(input.expiresAt);
    if (Number.isNaN(at.getTime()))
      throw invalidInput(`expiresAt "${input.expiresAt}" is not a date, e.g. 2030-12-31 or 2030-12-31T23:59:59Z.`);
    if (at <= now) throw invalidInput('expiresAt must be in the future.');
    expiresAt = at.toISOString();
  }
  const product = await deps.store.products.find(scope, input.productId);
  if (!product) throw notFound(`Product ${input.productId}`);
  const terms = await couponTerms(deps.store, scope, product.id, input, expiresAt);
  // One code names one coupon on each product: a code typed at checkout finds one discount.
  const mine = [product.id, ...terms.otherProductIds];
  for (const other of await deps.store.coupons.withCode(scope, code)) {
    const clash = mine.find((id) => id === other.productId || other.otherProductIds.includes(id));
    if (clash) throw invalidInput(`Product ${clash} already has a coupon ${code}.`);
  }
  // An amount off is converted from USD into the payer's currency; where no rate exists, the vendor says how much.
  const unconvertible = Object.keys(product.prices).filter(
    (c) => c !== 'USD' && !(c in amountsOff) && !deps.rates.perEuro.has(c),
  );
  if (!hasPercent && unconvertible.length > 0) {
    throw invalidInput(
      `Give the amount off in ${unconvertible.join(', ')} too: the product is priced in it and there is no exchange rate to convert the USD amount.`,
    );
  }
  const coupon: Coupon = {
    id: newId('coupon', now.getTime()),
    vendorId: scope.vendorId,
    environment: scope.environment,
    productId: product.id,
    code,
    percentOff,
    amountsOff,
    expiresAt,
    revokedAt: null,
    createdAt: now.toISOString(),
    ...terms,
    redemptions: 0,
  };
  await deps.store.coupons.insert(coupon);
  return coupon;
}

export function couponService(deps: CouponDeps) {
  return {
    create: (scope: Scope, input: NewCoupon) => createCoupon(deps, scope, input),

    list: (scope: Scope) => deps.store.coupons.list(scope),

    async revoke(scope: Scope, id: string): Promise<void> {
      if (!(await deps.store.coupons.revoke(scope, id, deps.clock.now().toISOString())))
        throw notFound(`Active coupon ${id}`);
    },

    async read(scope: Scope, id: string): Promise<Coupon> {
      const coupon = await deps.store.coupons.find(scope, id);
      if (!coupon) throw notFound(`Coupon ${id}`);
      return coupon;
    },

    /** Revokes a coupon and answers it; one revoked before answers as it is, so a retry is harmless. */
    async withdraw(scope: Scope, id: string): Promise<Coupon> {
      await deps.store.coupons.revoke(scope, id, deps.clock.now().toISOString());
      const coupon = await deps.store.coupons.find(scope, id);
      if (!coupon) throw notFound(`Coupon ${id}`);
      return coupon;
    },

    /**
     * The coupon a customer typed, if it may be used now on this product (and, given the buyer's
     * e-mail, by them); a clear error if not. The caps are read here for a clear message early; they
     * are enforced when the purchase holds its redemption (coupon-redemptions.ts).
     */
    async redeemable(scope: Scope, productId: string, typed: string, buyer?: { email: string }): Promise<Coupon> {
      const shown = typed.trim();
      const coupon = await deps.store.coupons.findByCode(scope, productId, normalizeCouponCode(typed));
      if (!coupon || coupon.revokedAt !== null || !(await fitsFrequency(deps.store, scope, productId, coupon)))
        throw new AppError('INVALID_INPUT', `The coupon "${shown}" is not valid for this product.`);
      const now = deps.clock.now(scope).toISOString();
      if (coupon.startsAt !== null && coupon.startsAt > now)
        throw new AppError('INVALID_INPUT', `The coupon "${shown}" is not valid yet.`);
      if (coupon.expiresAt !== null && coupon.expiresAt <= now)
        throw new AppError('INVALID_INPUT', `The coupon "${shown}" has expired.`);
      if (coupon.maxRedemptions !== null && coupon.redemptions >= coupon.maxRedemptions)
        throw new AppError('INVALID_INPUT', `The coupon "${shown}" has been used up.`);
      if (buyer && coupon.firstPurchaseOnly && (await deps.store.coupons.hasPaidPurchase(scope, buyer.email)))
        throw new AppError('INVALID_INPUT', `The coupon "${shown}" is for a first purchase only.`);
      return coupon;
    },
  };
}

export type CouponService = ReturnType<typeof couponService>;

/** A coupon limited to charge frequencies applies to subscriptions of those only (a one-time product has none). */
async function fitsFrequency(store: Store, scope: Scope, productId: string, coupon: Coupon): Promise<boolean> {
  if (coupon.frequencies === null) return true;
  const product = await store.products.find(scope, productId);
  return !!product && product.type === 'SUBSCRIPTION' && coupon.frequencies.includes(product.chargeFrequency);
}
