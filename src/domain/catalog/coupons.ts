import type { Clock } from '../clock.ts';
import { AppError, invalidInput, notFound } from '../errors.ts';
import type { ExchangeRates } from '../money/index.ts';
import { newId } from '../ids.ts';
import type { Coupon, Scope } from '../model.ts';
import { formatDecimal, multiplyByRate, parseDecimal } from '../money/index.ts';
import type { Store } from '../ports.ts';
import { convertFromUsd } from '../tax/index.ts';
import { parsePriceList } from '../money/index.ts';

/**
 * Discount codes of a product: a percentage off, or a fixed amount off (USD required, other
 * currencies converted from it when not given), optionally expiring. A discount lowers the net
 * price before tax, never below zero, and applies to the payment taken at checkout.
 */
export interface NewCoupon {
  productId: string;
  code: string;
  percentOff?: string | number | undefined;
  /** Prices-style list of {currency, value}: the amount off in each currency. */
  amountsOff?: unknown;
  expiresAt?: string | undefined;
}

const CODE = /^[A-Z0-9][A-Z0-9_-]{2,31}$/;

export const normalizeCouponCode = (code: string) => code.trim().toUpperCase();

/** The net price after the coupon, in the currency the customer pays, rounded half up. */
export function discountedNet(netMinor: number, currency: string, coupon: Coupon, rates: ExchangeRates): number {
  let off: number;
  if (coupon.percentOff !== null) {
    const percent = parseDecimal(coupon.percentOff);
    off = multiplyByRate(netMinor, { units: percent.units, scale: percent.scale + 2 });
  } else {
    off = coupon.amountsOff[currency] ?? convertFromUsd(coupon.amountsOff.USD ?? 0, currency, rates);
  }
  return Math.max(0, netMinor - off);
}

export function couponService(deps: { store: Store; clock: Clock; rates: ExchangeRates }) {
  return {
    async create(scope: Scope, input: NewCoupon): Promise<Coupon> {
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
      if (await deps.store.coupons.findByCode(scope, product.id, code))
        throw invalidInput(`Product ${product.id} already has a coupon ${code}.`);
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
      };
      await deps.store.coupons.insert(coupon);
      return coupon;
    },

    list: (scope: Scope) => deps.store.coupons.list(scope),

    async revoke(scope: Scope, id: string): Promise<void> {
      if (!(await deps.store.coupons.revoke(scope, id, deps.clock.now().toISOString())))
        throw notFound(`Active coupon ${id}`);
    },

    /** The coupon a customer typed, if it may be used now on this product; a clear error if not. */
    async redeemable(scope: Scope, productId: string, typed: string): Promise<Coupon> {
      const coupon = await deps.store.coupons.findByCode(scope, productId, normalizeCouponCode(typed));
      if (!coupon || coupon.revokedAt !== null)
        throw new AppError('INVALID_INPUT', `The coupon "${typed.trim()}" is not valid for this product.`);
      if (coupon.expiresAt !== null && coupon.expiresAt <= deps.clock.now(scope).toISOString())
        throw new AppError('INVALID_INPUT', `The coupon "${typed.trim()}" has expired.`);
      return coupon;
    },
  };
}

export type CouponService = ReturnType<typeof couponService>;
