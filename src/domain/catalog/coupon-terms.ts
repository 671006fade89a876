import { invalidInput, notFound } from '../errors.ts';
import { RECURRING_FREQUENCIES, type ChargeFrequency, type Coupon, type CouponDuration, type Scope } from '../model.ts';
import type { Store } from '../ports.ts';

/**
 * How long a coupon lasts and whom it is for (docs/decisions.md §38): the fields a coupon gained
 * beside its discount, checked when it is made. Left out, each means what a coupon meant before:
 * the first payment only, no cap, its one product, every frequency, anyone, from now.
 */
export interface CouponTermsInput {
  duration?: string | undefined;
  durationPeriods?: number | undefined;
  maxRedemptions?: number | undefined;
  maxPerCustomer?: number | undefined;
  otherProductIds?: readonly string[] | undefined;
  frequencies?: readonly string[] | undefined;
  firstPurchaseOnly?: boolean | undefined;
  startsAt?: string | undefined;
}

export type CouponTerms = Pick<
  Coupon,
  | 'duration'
  | 'durationPeriods'
  | 'maxRedemptions'
  | 'maxPerCustomer'
  | 'otherProductIds'
  | 'frequencies'
  | 'firstPurchaseOnly'
  | 'startsAt'
>;

/** What a coupon made before lasting discounts means: its first payment, on its one product, for anyone. */
export const ONCE_COUPON: CouponTerms & Pick<Coupon, 'redemptions'> = {
  duration: 'once',
  durationPeriods: null,
  maxRedemptions: null,
  redemptions: 0,
  maxPerCustomer: null,
  otherProductIds: [],
  frequencies: null,
  firstPurchaseOnly: false,
  startsAt: null,
};

/** At most 999 periods, as Paddle's longest discount; caps up to a billion. */
const MAX_PERIODS = 999;
const MAX_CAP = 1_000_000_000;
const DURATIONS: readonly CouponDuration[] = ['once', 'forever', 'repeating'];

function count(value: number | undefined, name: string, max: number): number | null {
  if (value === undefined) return null;
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw invalidInput(`${name} must be a whole number from 1 to ${max}.`);
  return value;
}

function duration(input: CouponTermsInput): Pick<Coupon, 'duration' | 'durationPeriods'> {
  const kind = (input.duration ?? 'once') as CouponDuration;
  if (!DURATIONS.includes(kind)) throw invalidInput('duration must be once, forever or repeating.');
  const periods = count(input.durationPeriods, 'durationPeriods', MAX_PERIODS);
  if (kind === 'repeating' && periods === null)
    throw invalidInput('A repeating coupon needs durationPeriods: how many billing periods it discounts.');
  if (kind !== 'repeating' && periods !== null) throw invalidInput('durationPeriods is only for a repeating coupon.');
  return { duration: kind, durationPeriods: periods };
}

function frequencies(input: CouponTermsInput): ChargeFrequency[] | null {
  if (input.frequencies === undefined || input.frequencies.length === 0) return null;
  const wanted = [...new Set(input.frequencies.map((f) => f.trim().toUpperCase()))];
  const unknown = wanted.filter((f) => !RECURRING_FREQUENCIES.includes(f as ChargeFrequency));
  if (unknown.length > 0)
    throw invalidInput(`Unknown charge frequency ${unknown.join(', ')}: use ${RECURRING_FREQUENCIES.join(', ')}.`);
  return wanted as ChargeFrequency[];
}

/** The terms of a new coupon of `productId`, checked; the other products must be the vendor's own. */
export async function couponTerms(
  store: Store,
  scope: Scope,
  productId: string,
  input: CouponTermsInput,
  expiresAt: string | null,
): Promise<CouponTerms> {
  let startsAt: string | null = null;
  if (input.startsAt !== undefined) {
    const at = new Date(input.startsAt);
    if (Number.isNaN(at.getTime()))
      throw invalidInput(`startsAt "${input.startsAt}" is not a date, e.g. 2030-01-01 or 2030-01-01T00:00:00Z.`);
    startsAt = at.toISOString();
    if (expiresAt !== null && expiresAt <= startsAt) throw invalidInput('expiresAt must be after startsAt.');
  }
  const others = [...new Set((input.otherProductIds ?? []).map((id) => id.trim()).filter(Boolean))].filter(
    (id) => id !== productId,
  );
  for (const id of others) if (!(await store.products.find(scope, id))) throw notFound(`Product ${id}`);
  return {
    ...duration(input),
    maxRedemptions: count(input.maxRedemptions, 'maxRedemptions', MAX_CAP),
    maxPerCustomer: count(input.maxPerCustomer, 'maxPerCustomer', MAX_CAP),
    otherProductIds: others,
    frequencies: frequencies(input),
    firstPurchaseOnly: input.firstPurchaseOnly === true,
    startsAt,
  };
}

/** The cap on one e-mail's redemptions: a first-purchase-only coupon is used once per e-mail at most. */
export const customerCap = (coupon: Pick<Coupon, 'maxPerCustomer' | 'firstPurchaseOnly'>): number | null =>
  coupon.firstPurchaseOnly ? Math.min(coupon.maxPerCustomer ?? 1, 1) : coupon.maxPerCustomer;
