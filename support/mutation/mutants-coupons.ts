import type { Mutant } from './mutant.ts';

const RENEWALS = 'test/billing/lasting-coupons.test.ts';
const REDEMPTIONS = 'test/api/coupon-redemptions.test.ts';
const RESTRICTIONS = 'test/api/coupon-restrictions.test.ts';
const WORDS = 'test/api/coupon-checkout-words.test.ts';

/** Mutants of lasting discounts: durations, caps, restrictions and what they show (issue 37, docs/decisions.md §38). */
export const couponMutants: Mutant[] = [
  {
    id: 'coupon-repeating-one-period-more',
    file: 'src/domain/tax/coupon-discounts.ts',
    find: 'return period < periods;',
    replace: 'return period <= periods;',
    tests: [RENEWALS],
  },
  {
    id: 'coupon-forever-once',
    file: 'src/domain/tax/coupon-discounts.ts',
    find: "if (coupon.duration === 'forever') return true;",
    replace: '',
    tests: [RENEWALS],
  },
  {
    id: 'coupon-renewal-dropped',
    file: 'src/domain/billing/renewal-coupons.ts',
    find: 'if (!coupon || !discountsPeriod(coupon, t.billing.period)) return undefined;',
    replace: 'return undefined;',
    tests: [RENEWALS],
  },
  {
    id: 'coupon-revoked-stops-renewal-discount',
    file: 'src/domain/billing/renewal-coupons.ts',
    find: 'if (!coupon || !discountsPeriod',
    replace: 'if (!coupon || coupon.revokedAt !== null || !discountsPeriod',
    tests: [RENEWALS],
  },
  {
    id: 'coupon-purchase-forgets-coupon',
    file: 'src/domain/checkout/purchase-plan.ts',
    find: 'prepared.plan.transaction.couponId = coupon?.id ?? null;',
    replace: 'prepared.plan.transaction.couponId = null;',
    tests: [RENEWALS, REDEMPTIONS],
  },
  {
    id: 'coupon-total-cap-read-not-enforced',
    file: 'src/store/coupons-store.ts',
    find: ".where((eb) => eb.or([eb('max_redemptions', 'is', null), eb('redemptions', '<', eb.ref('max_redemptions'))]))",
    replace: '',
    tests: [REDEMPTIONS],
  },
  {
    id: 'coupon-customer-cap-not-enforced',
    file: 'src/store/coupons-store.ts',
    find: ".where('redemptions', '<', r.maxPerCustomer)",
    replace: '',
    tests: [REDEMPTIONS],
  },
  {
    id: 'coupon-decline-keeps-redemption',
    file: 'src/domain/checkout/purchase-booking.ts',
    find: 'declined: (repos, attempt, _decline, at) => releaseRedemption(repos, attempt, at),',
    replace: 'declined: async () => {},',
    tests: [REDEMPTIONS],
  },
  {
    id: 'coupon-void-keeps-redemption',
    file: 'src/domain/checkout/purchase-booking.ts',
    find: 'voided: (repos, attempt, at) => releaseRedemption(repos, attempt, at),',
    replace: 'voided: async () => {},',
    tests: [REDEMPTIONS],
  },
  {
    id: 'coupon-cap-refusal-after-record-ignored',
    file: 'src/domain/checkout/coupon-redemptions.ts',
    find: "if (held === 'USED_UP') throw",
    replace: "if (held === 'NEVER' as string) throw",
    tests: [REDEMPTIONS],
  },
  {
    id: 'coupon-email-case-counts-apart',
    file: 'src/store/coupons-store.ts',
    find: 'const email = r.email.toLowerCase();',
    replace: 'const email = r.email;',
    tests: [REDEMPTIONS],
  },
  {
    id: 'coupon-other-products-ignored',
    file: 'src/store/coupons-store.ts',
    find: ' ?? coupons.find((c) => c.otherProductIds.includes(productId));',
    replace: ';',
    tests: [RESTRICTIONS],
  },
  {
    id: 'coupon-frequency-ignored',
    file: 'src/domain/catalog/coupons.ts',
    find: 'if (coupon.frequencies === null) return true;',
    replace: 'return true;',
    tests: [RESTRICTIONS],
  },
  {
    id: 'coupon-first-purchase-ignored',
    file: 'src/domain/catalog/coupons.ts',
    find: 'if (buyer && coupon.firstPurchaseOnly && (await',
    replace: 'if (buyer && !coupon.firstPurchaseOnly && (await',
    tests: [RESTRICTIONS],
  },
  {
    id: 'coupon-start-on-real-clock',
    file: 'src/domain/catalog/coupons.ts',
    find: 'const now = deps.clock.now(scope).toISOString();',
    replace: 'const now = deps.clock.now().toISOString();',
    tests: [RENEWALS],
  },
  {
    id: 'coupon-entry-forgets-discount',
    file: 'src/domain/payments/ledger.ts',
    find: 'discountMinor: quote.discountMinor ?? 0,',
    replace: 'discountMinor: 0,',
    tests: [RENEWALS],
  },
  {
    id: 'coupon-invoice-line-at-net',
    file: 'src/domain/reports/invoices.ts',
    find: '...seatsOnLine(sign * entry.netMinor + discountOn(entry, payment), transaction.quantity),',
    replace: '...seatsOnLine(sign * entry.netMinor, transaction.quantity),',
    tests: [RENEWALS],
  },
  {
    id: 'coupon-half-year-said-as-one-month',
    file: 'src/http/pages/checkout/coupon-words.ts',
    find: "{ unit: 'MONTH', count: count * 6 }",
    replace: "{ unit: 'MONTH', count }",
    tests: [WORDS],
  },
  {
    id: 'coupon-then-price-discounted',
    file: 'src/domain/checkout/lasting-discounts.ts',
    find: 'thenTotalMinor: undiscounted().totalMinor,',
    replace: 'thenTotalMinor: quote.totalMinor,',
    tests: [WORDS],
  },
];
