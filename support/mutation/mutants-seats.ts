import type { Mutant } from './mutant.ts';

const SEATS = 'test/api/seats.test.ts';
const CHANGES = 'test/api/seat-changes.test.ts';
const PROPERTY = 'test/api/seat-proration-property.test.ts';
const CHECKOUT = 'test/api/checkout-seats.test.ts';
const MRR = 'test/api/seats-mrr.test.ts';
const KEYS = 'test/api/seat-licences.test.ts';
const MANAGE = 'test/api/seats-manage.test.ts';

/** Mutants of seats: volume tiers, the quantity's price, renewals, seat changes and invoices (issue 37, docs/decisions.md §39). */
export const seatMutants: Mutant[] = [
  {
    id: 'seats-tier-boundary-off-by-one',
    file: 'src/domain/tax/pricing.ts',
    find: 'if (quantity >= tier.fromQuantity) prices = tier.prices;',
    replace: 'if (quantity > tier.fromQuantity) prices = tier.prices;',
    tests: [SEATS, CHECKOUT],
  },
  {
    id: 'seats-list-net-of-one-seat',
    file: 'src/domain/tax/pricing.ts',
    find: 'return { currency, netMinor: timesQuantity(unit, request.quantity, currency) };',
    replace: 'return { currency, netMinor: unit };',
    tests: [SEATS, CHECKOUT],
  },
  {
    id: 'seats-net-usd-of-one-seat',
    file: 'src/domain/tax/pricing.ts',
    find: "const usd = timesQuantity(request.prices.USD!, request.quantity, 'USD');",
    replace: 'const usd = request.prices.USD!;',
    tests: [SEATS, CHANGES],
  },
  {
    id: 'seats-customized-link-takes-tiers',
    file: 'src/domain/tax/pricing.ts',
    find: 'if (customized || !product.seats) return product.prices;',
    replace: 'if (!product.seats) return product.prices;',
    tests: [CHECKOUT],
  },
  {
    id: 'seats-renewal-of-one-seat',
    file: 'src/domain/billing/renewal-plan.ts',
    find: '      quantity: t.quantity,\n',
    replace: '',
    tests: [SEATS],
  },
  {
    id: 'seats-renewal-at-base-price',
    file: 'src/domain/billing/renewal-plan.ts',
    find: 'cache.set(key, offer && seatUnitPrices(offer, t.quantity, !!t.customizedProductId));',
    replace: 'cache.set(key, offer?.prices);',
    tests: [SEATS],
  },
  {
    id: 'seats-maximum-not-checked',
    file: 'src/domain/catalog/seats.ts',
    find: 'if (n < seats.minQuantity || n > seats.maxQuantity)',
    replace: 'if (n < seats.minQuantity)',
    tests: [SEATS, CHANGES, CHECKOUT],
  },
  {
    id: 'seats-decrease-now-increase-later',
    file: 'src/domain/checkout/seat-changes.ts',
    find: 'atPeriodEnd: !increase,',
    replace: 'atPeriodEnd: increase,',
    tests: [CHANGES, PROPERTY],
  },
  {
    id: 'seats-second-change-before-charge',
    file: 'src/domain/checkout/seat-changes.ts',
    find: 'if (canChangeSeats(old) && !old.lastCharge && old.nextCharge)',
    replace: 'if (canChangeSeats(old) && !old.lastCharge && !old.nextCharge)',
    tests: [CHANGES],
  },
  {
    id: 'seats-switch-charged-today',
    file: 'src/domain/checkout/purchase-plan.ts',
    find: 'const today = dueToday(checked.offer, quote.totalMinor, migration !== null);',
    replace: 'const today = dueToday(checked.offer, quote.totalMinor);',
    tests: [CHANGES, PROPERTY],
  },
  {
    id: 'seats-invoice-line-of-one',
    file: 'src/domain/reports/invoices.ts',
    find: 'if (quantity > 1 && lineMinor % quantity === 0)',
    replace: 'if (quantity > 1 && lineMinor % quantity === 1)',
    tests: [SEATS],
  },
  {
    id: 'seats-mrr-of-one-seat',
    file: 'src/domain/billing/renewal-plan.ts',
    find: 'const list = listPrice({ prices: unit, currency, allowConversion: RENEWALS_CONVERT, rates, quantity });',
    replace: 'const list = listPrice({ prices: unit, currency, allowConversion: RENEWALS_CONVERT, rates });',
    tests: [MRR],
  },
  {
    id: 'seats-mrr-without-tiers',
    file: 'src/domain/billing/renewal-plan.ts',
    find: 'const unit = seatUnitPrices({ prices, seats }, quantity);',
    replace: 'const unit = prices;',
    tests: [MRR],
  },
  {
    id: 'seats-mrr-store-drops-tiers',
    file: 'src/store/dashboard-store.ts',
    find: 'seats: r.customized_product_id === null ? (seats.get(r.product_id) ?? null) : null,',
    replace: 'seats: null,',
    tests: [MRR],
  },
  {
    id: 'seats-change-issues-new-key',
    file: 'src/domain/checkout/purchase-plan.ts',
    find: 'keepsLicence: migration.old.productId === product.id,',
    replace: 'keepsLicence: false,',
    tests: [KEYS],
  },
  {
    id: 'seats-other-product-keeps-key',
    file: 'src/domain/checkout/purchase-plan.ts',
    find: 'keepsLicence: migration.old.productId === product.id,',
    replace: 'keepsLicence: true,',
    tests: [KEYS],
  },
  {
    id: 'seats-key-carried-from-the-new-one',
    file: 'src/store/ledger-store.ts',
    find: ".set({ transaction_id: toTransactionId })\n        .where('transaction_id', '=', fromTransactionId)",
    replace: ".set({ transaction_id: toTransactionId })\n        .where('transaction_id', '=', toTransactionId)",
    tests: [KEYS],
  },
  {
    id: 'seats-manage-without-the-vendors-leave',
    file: 'src/domain/portal/seat-offer.ts',
    find: "throw invalidState('The seller does not let customers change their seats here.');",
    replace: ';',
    tests: [MANAGE],
  },
  {
    id: 'seats-manage-empty-field-is-the-minimum',
    file: 'src/http/pages/manage/manage-seats-action.ts',
    find: 'const quantity = /^\\d{1,9}$/.test(raw) ? Number(raw) : null;',
    replace: "const quantity = raw === '' ? undefined : /^\\d{1,9}$/.test(raw) ? Number(raw) : raw;",
    tests: [MANAGE],
  },
  {
    id: 'seats-manage-offers-a-second-change',
    file: 'src/domain/portal/seat-offer.ts',
    find: 'waitsFor: t.lastCharge ? null : t.nextCharge,',
    replace: 'waitsFor: null,',
    tests: [MANAGE],
  },
];
