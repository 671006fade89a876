/**
 * Hand-made mutants of the money, billing, idempotency, refund and scoping code, for
 * `npm run mutants` (support/mutation/run-mutants.ts). Each is one small, realistic mistake:
 * `find` must occur exactly once in `file`; `tests` are the few test files that should notice it.
 */
import type { Mutant } from './mutant.ts';
import { checkoutLanguageMutants } from './mutants-checkout-i18n.ts';
import { portalMutants } from './mutants-portal.ts';
import { documentLanguageMutants } from './mutants-documents-i18n.ts';
import { panelDetailMutants } from './mutants-panel-detail.ts';
import { paymentMethodMutants } from './mutants-payment-methods.ts';
import { pauseMutants } from './mutants-pause.ts';
import { productFormMutants } from './mutants-product-form.ts';
import { couponMutants } from './mutants-coupons.ts';
import { licenceMutants } from './mutants-licences.ts';
import { seatMutants } from './mutants-seats.ts';
import { authenticationMutants } from './mutants-authentication.ts';
export type { Mutant } from './mutant.ts';

const FAULTS = 'test/faults/money-faults.test.ts';
const PASSWORDS = 'test/unit/password-hashing.test.ts';
const U_CONFIG = 'test/unit/config.test.ts';
const REFUNDS = 'test/api/refunds.test.ts';
const IDEM = 'test/api/idempotency.test.ts';
const IDEM_RETRIES = 'test/api/idempotency-retries.test.ts';
const MONEY = 'test/api/money-behaviours.test.ts';
const PRORATION = 'test/api/proration-periods.test.ts';
const VAULTED = 'test/api/vaulted-and-customize.test.ts';
const CANCEL = 'test/api/cancel-subscription.test.ts';
const CHANGED = 'test/api/changed-transactions.test.ts';
const ISOLATION = 'test/api/auth-and-isolation.test.ts';
const LICENCES = 'test/api/licences.test.ts';
const CHECKOUT = 'test/api/checkout.test.ts';
const MIGRATION = 'test/api/migration.test.ts';
const ADMIN = 'test/api/admin-tool.test.ts';
const READ = 'test/api/read-transactions.test.ts';
const UPDATE = 'test/api/transactions-update.test.ts';
const COUPON_GUESSING = 'test/api/coupon-guessing.test.ts';
const DUNNING = 'test/billing/dunning-and-clock.test.ts';
const LIFECYCLE = 'test/billing/lifecycle.test.ts';
const RACE = 'test/billing/race.test.ts';
const CRASH = 'test/billing/crash.test.ts';
const FEED_RACE = 'test/billing/feed-race.test.ts';
const CLOCKS = 'test/billing/sandbox-clock-isolation.test.ts';
const U_MONEY = 'test/unit/money.test.ts';
const U_MONEY_PROPS = 'test/unit/money-properties.test.ts';
const U_PERIOD = 'test/unit/billing-period.test.ts';
const U_PRICING = 'test/unit/pricing-coupons-properties.test.ts';

const M_PROTOCOL = 'test/api/mutants-charge-protocol.test.ts';
const M_PURCHASES = 'test/api/mutants-purchases.test.ts';
const M_REFUNDS_COUPONS = 'test/api/mutants-refunds-and-coupons.test.ts';
const M_LEDGER = 'test/unit/mutants-ledger.test.ts';
const M_PRORATION = 'test/unit/mutants-proration.test.ts';
const M_SCOPING = 'test/store/mutants-scoping.test.ts';
const M_RENEWAL_RACES = 'test/billing/mutants-renewal-races.test.ts';
const M_VAULTED = 'test/api/mutants-vaulted.test.ts';
const M_SANDBOX_OFFERS = 'test/billing/mutants-sandbox-offers.test.ts';

const STRIPE_PAYMENTS = 'test/stripe/production-payments.test.ts';
const STRIPE_EVENTS = 'test/stripe/stripe-events.test.ts';
const STRIPE_FAULTS = 'test/faults/stripe-money-faults.test.ts';
const EVENTS = 'test/billing/processor-events.test.ts';
const PARTIAL = 'test/api/partial-refunds.test.ts';
const ANY_ORDER = 'test/stripe/reversals-in-any-order.test.ts';
const U_REVERSALS = 'test/unit/reversal-amounts.test.ts';
const PARTIAL_PAGES = 'test/api/partial-refund-pages.test.ts';
const PANEL_DASHBOARD = 'test/api/panel-dashboard.test.ts';
const PANEL = 'test/api/panel.test.ts';
const SANDBOX_REVERSALS = 'test/billing/sandbox-clock-reversals.test.ts';
const DISPUTE_AFTER_REFUND = 'test/billing/dispute-after-refund.test.ts';
const FOUND_BY_METADATA = 'test/stripe/found-by-metadata.test.ts';
const UNKNOWN_OUTCOMES = 'test/billing/unknown-outcomes.test.ts';
const NOTICES = 'test/emails/scheduled-notices.test.ts';
const OUTBOX_LEASE = 'test/emails/outbox-lease.test.ts';
const ATTEMPT_LEASE = 'test/billing/attempt-lease.test.ts';
const DUNNING_EMAILS = 'test/emails/dunning-emails.test.ts';
const FEE = 'test/api/platform-fee.test.ts';
const U_FEE = 'test/unit/platform-fee.test.ts';
const PAYOUTS = 'test/api/payouts.test.ts';
const PAYOUT_RANGES = 'test/billing/payout-ranges.test.ts';
const PAYOUT_RANGES_MIGRATION = 'test/store/payout-ranges-migration.test.ts';
const U_PAYOUT_WINDOW = 'test/unit/payout-window.test.ts';
const TAX_REPORT = 'test/api/tax-report.test.ts';
const U_TAX_PERIODS = 'test/unit/tax-periods-and-rates.test.ts';
const CONSOLE = 'test/api/operator-console.test.ts';
const PANEL_TAXES = 'test/api/panel-taxes.test.ts';
const RATES_CLI = 'test/cli/rates-cli.test.ts';
const H = 'src/http/pages/';

const D = 'src/domain/';
const G = 'src/gateways/';
const S = 'src/store/';

// SDK (issue 35): the tests of packages/client.
const SDK_CALLS = 'test/sdk/client-calls.test.ts';
const SDK_RETRIES = 'test/sdk/client-retries.test.ts';
const SDK_CHANGES = 'test/sdk/client-changes.test.ts';
const SDK_WEBHOOKS = 'test/sdk/verify-webhook.test.ts';

export const mutants: Mutant[] = [
  // The charge protocol: record, ask, settle exactly once, reconcile.
  {
    id: 'protocol-book-without-winning',
    file: `${D}payments/settling-attempts.ts`,
    find: 'if (!won) return;',
    replace: '',
    tests: [FAULTS, REFUNDS, IDEM_RETRIES, M_PROTOCOL],
  },
  {
    id: 'protocol-swallow-free-booking-failure',
    file: `${D}payments/settling-attempts.ts`,
    find: "outcome.status === 'SUCCEEDED' && attempt.amountMinor > 0",
    replace: "outcome.status === 'SUCCEEDED' && attempt.amountMinor >= 0",
    tests: [MIGRATION, FAULTS, M_PROTOCOL],
  },
  {
    id: 'protocol-unresolved-too-early',
    file: `${D}payments/reconciling-an-attempt.ts`,
    find: '> UNRESOLVED_AFTER_MS',
    replace: '< UNRESOLVED_AFTER_MS',
    tests: [FAULTS, M_PROTOCOL],
  },
  {
    id: 'protocol-skip-decline-booking',
    file: `${D}payments/settling-attempts.ts`,
    find: "else if (outcome.status === 'DECLINED') await booking.declined?.(repos, attempt, outcome, when);",
    replace: '',
    tests: [VAULTED],
  },
  {
    id: 'protocol-never-void-unknown-attempt',
    file: `${D}payments/reconciling-an-attempt.ts`,
    find: "if (found.status === 'NOT_FOUND') return settleAttempt(deps, attempt, { status: 'VOIDED' }, booking);",
    replace: "if (found.status === 'NOT_FOUND') return attempt;",
    tests: [FAULTS, M_PROTOCOL],
  },
  {
    id: 'protocol-reconcile-grace-wrong-way',
    file: `${D}payments/attempt-reconciler.ts`,
    find: 'const idleSince = new Date(now - deps.graceMs).toISOString();',
    replace: 'const idleSince = new Date(now + deps.graceMs).toISOString();',
    tests: [FAULTS, M_PROTOCOL],
  },

  // Purchases.
  {
    id: 'purchase-voided-attempt-is-final',
    file: `${D}checkout/form-keys.ts`,
    find: "(attempt) => attempt.status === 'DECLINED' || wasVoided(attempt));",
    replace: "(attempt) => attempt.status === 'DECLINED');",
    tests: [FAULTS, CHECKOUT, M_PURCHASES],
  },
  {
    id: 'purchase-ignore-changed-total',
    file: `${D}checkout/purchase-plan.ts`,
    find: 'expected.currency.toUpperCase() !== quote.currency || expected.totalMinor !== quote.totalMinor',
    replace: 'expected.currency.toUpperCase() !== quote.currency',
    tests: [CHECKOUT, MONEY],
  },
  {
    id: 'purchase-charge-zero-total',
    file: `${D}checkout/due-today.ts`,
    find: 'const charged = !switching && !trial && totalMinor > 0;',
    replace: 'const charged = !switching && !trial && totalMinor >= 0;',
    tests: [CHECKOUT, MONEY, IDEM_RETRIES, 'test/unit/due-today.test.ts'],
  },
  {
    id: 'purchase-migration-ignores-moved-renewal',
    file: `${D}checkout/subscription-migration.ts`,
    find: "current.status !== 'SUBSCRIPTION_STATUS_ACTIVE' || current.nextCharge !== migration.oldNextCharge",
    replace: "current.status !== 'SUBSCRIPTION_STATUS_ACTIVE'",
    tests: [MIGRATION, PRORATION, 'test/api/migration-race.test.ts'],
  },
  {
    id: 'purchase-resume-other-vendors-attempt',
    file: `${D}checkout/purchase-outcomes.ts`,
    find: 'attempt.scope.vendorId !== scope.vendorId ||',
    replace: '',
    tests: [IDEM, ISOLATION, CHECKOUT, M_PURCHASES],
  },
  {
    id: 'purchase-subscription-booked-as-onetime',
    file: `${D}checkout/purchase-booking.ts`,
    find: "if (type === 'SUBSCRIPTION') return 'SUBSCRIPTION_PAYMENT';",
    replace: "if (type === 'SUBSCRIPTION') return 'ONETIME_PAYMENT';",
    tests: [MONEY, READ, LIFECYCLE],
  },
  {
    id: 'purchase-migration-by-anyone',
    file: `${D}checkout/subscription-migration.ts`,
    find: 'if (!owner.includes(email.toLowerCase()))',
    replace: 'if (owner.length === 0)',
    tests: [MIGRATION, PRORATION],
  },
  {
    id: 'purchase-zero-day-trial',
    file: `${D}checkout/due-today.ts`,
    find: "product.type === 'SUBSCRIPTION' && product.trialDays > 0",
    replace: "product.type === 'SUBSCRIPTION' && product.trialDays >= 0",
    tests: [CHECKOUT, MONEY, LIFECYCLE, 'test/unit/due-today.test.ts'],
  },

  // Refunds and the ledger.
  {
    id: 'ledger-refund-first-payment',
    file: `${D}payments/ledger.ts`,
    find: '[...entries].reverse().find(',
    replace: '[...entries].find(',
    tests: [REFUNDS, LIFECYCLE, ADMIN, M_LEDGER],
  },
  {
    id: 'refund-no-open-refund-check',
    file: `${D}payments/recording-a-refund.ts`,
    find: "if (await repos.chargeAttempts.findOpenFor(id, 'REFUND')) {",
    replace: 'if (false) {',
    tests: [REFUNDS, FAULTS],
  },
  {
    id: 'refund-already-refunded-not-refused',
    file: `${D}payments/planning-a-refund.ts`,
    find: "if (transaction.status === 'TRANSACTION_STATUS_PENDING' || transaction.status === 'TRANSACTION_STATUS_REFUNDED')\n    return undefined;",
    replace: `if (transaction.status === 'TRANSACTION_STATUS_PENDING') return undefined;`,
    tests: [REFUNDS, LIFECYCLE, M_REFUNDS_COUPONS, PARTIAL],
  },
  {
    id: 'refund-of-zero-accepted',
    file: `${D}payments/planning-a-refund.ts`,
    find: `if (amountMinor <= 0) throw invalidInput('A refund must be of more than zero.');`,
    replace: `if (amountMinor < 0) throw invalidInput('A refund must be of more than zero.');`,
    tests: [REFUNDS, MONEY, PARTIAL, PARTIAL_PAGES],
  },
  {
    id: 'refund-onetime-status-kept',
    file: `${D}payments/reversing-a-payment.ts`,
    find: `if (!fully || !latest || transaction.type === 'VAULTED') return {};`,
    replace: `if (!fully || !latest || transaction.type === 'ONETIME') return {};`,
    tests: [REFUNDS, READ],
  },
  {
    id: 'refund-subscription-keeps-next-charge',
    file: `${D}payments/reversing-a-payment.ts`,
    find: "    return { status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };",
    replace: "    return { status: 'TRANSACTION_STATUS_REFUNDED' };",
    tests: [REFUNDS, LIFECYCLE],
  },
  {
    id: 'refund-wrong-change-flag',
    file: `${D}payments/reversing-a-payment.ts`,
    find: "const change = { flag: 'CHANGED_STATUS_REFUNDED', at: request.at.toISOString() } as const;",
    replace: "const change = { flag: 'CHANGED_STATUS_CANCELLED', at: request.at.toISOString() } as const;",
    tests: [REFUNDS, CHANGED],
  },
  {
    // The bug CI found: the cancellation dated by the ledger's ordering (+1 ms), not when the refund was made.
    id: 'reversal-change-dated-by-ledger-order',
    file: `${D}payments/reversing-a-payment.ts`,
    find: "const change = { flag: 'CHANGED_STATUS_REFUNDED', at: request.at.toISOString() } as const;",
    replace: "const change = { flag: 'CHANGED_STATUS_REFUNDED', at: (undone ?? entry).createdAt } as const;",
    tests: ['test/api/panel-figures.test.ts'],
  },
  {
    id: 'seen-ledger-only-shorter',
    file: `${D}payments/seen-ledger.ts`,
    find: 'entries.length !== seen.entries',
    replace: 'entries.length < seen.entries',
    tests: [ADMIN],
  },
  {
    id: 'ledger-income-ignores-fee',
    file: `${D}payments/ledger.ts`,
    find: 'incomeMinor: quote.netMinor - paid.feeMinor - serviceFeeMinor,',
    replace: 'incomeMinor: quote.netMinor - serviceFeeMinor,',
    tests: [MONEY, READ, REFUNDS, M_LEDGER],
  },
  {
    id: 'ledger-reversal-keeps-tax-sign',
    file: `${D}payments/ledger.ts`,
    find: 'taxMinor: -payment.taxMinor,',
    replace: 'taxMinor: payment.taxMinor,',
    tests: [REFUNDS, READ, M_LEDGER],
  },
  {
    id: 'ledger-total-without-tax',
    file: `${D}payments/ledger.ts`,
    find: 'amountTotalMinor: quote.netMinor + quote.taxMinor,',
    replace: 'amountTotalMinor: quote.netMinor,',
    tests: [MONEY, READ],
  },
  {
    id: 'ledger-vaulted-charge-not-a-payment',
    file: `${D}payments/ledger.ts`,
    find: " || entry.type === 'VAULTED_PAYMENT'",
    replace: '',
    tests: [VAULTED, REFUNDS, M_LEDGER],
  },

  // Money arithmetic.
  {
    id: 'money-round-half-down',
    file: `${D}money/money.ts`,
    find: '(a * 2n + b) / (b * 2n)',
    replace: '(a * 2n + b - 1n) / (b * 2n)',
    tests: [U_MONEY, U_MONEY_PROPS],
  },
  {
    id: 'money-silently-drop-decimals',
    file: `${D}money/money.ts`,
    find: 'while (scale > exponent && units % 10n === 0n) {',
    replace: 'while (scale > exponent) {',
    tests: [U_MONEY, U_MONEY_PROPS],
  },
  {
    id: 'money-format-loses-sign',
    file: `${D}money/money.ts`,
    find: 'return negative ? `-${text}` : text;',
    replace: 'return text;',
    tests: [U_MONEY, U_MONEY_PROPS],
  },
  {
    id: 'money-negative-unbounded',
    file: `${D}money/money.ts`,
    find: 'if (minor > MAX_SAFE_MINOR || minor < -MAX_SAFE_MINOR)',
    replace: 'if (minor > MAX_SAFE_MINOR)',
    tests: [U_MONEY, U_MONEY_PROPS],
  },
  {
    id: 'money-round-negative-toward-positive',
    file: `${D}money/money.ts`,
    find: 'return negative ? -quotient : quotient;',
    replace: 'return quotient;',
    tests: [U_MONEY, U_MONEY_PROPS],
  },

  // Pricing, coupons, proration.
  {
    id: 'pricing-usd-value-ignores-discount',
    file: `${D}tax/pricing.ts`,
    find: "netUsdMinor: request.discount ? request.discount(usd, 'USD') : usd,",
    replace: 'netUsdMinor: usd,',
    tests: [U_PRICING, PRORATION, MONEY],
  },
  {
    id: 'pricing-convert-without-permission',
    file: `${D}tax/pricing.ts`,
    find: 'if (request.allowConversion && request.rates.perEuro.has(wanted)) return wanted;',
    replace: 'if (request.rates.perEuro.has(wanted)) return wanted;',
    tests: [U_PRICING, MONEY, CHECKOUT],
  },
  {
    id: 'pricing-discount-not-reported',
    file: `${D}tax/pricing.ts`,
    find: 'discountMinor: listNetMinor - netMinor,',
    replace: 'discountMinor: 0,',
    tests: [U_PRICING, MONEY, CHECKOUT],
  },
  {
    id: 'pricing-exponent-shift-reversed',
    file: `${D}money/exchange-rates.ts`,
    find: 'const shift = currencyExponent(to) - currencyExponent(from);',
    replace: 'const shift = currencyExponent(from) - currencyExponent(to);',
    tests: [U_PRICING, MONEY, U_TAX_PERIODS],
  },
  {
    id: 'coupon-below-zero',
    file: `${D}tax/coupon-discounts.ts`,
    find: 'return Math.max(0, netMinor - off);',
    replace: 'return netMinor - off;',
    tests: [U_PRICING, MONEY, CHECKOUT],
  },
  {
    id: 'coupon-percent-tenfold',
    file: `${D}tax/coupon-discounts.ts`,
    find: 'scale: percent.scale + 2',
    replace: 'scale: percent.scale + 1',
    tests: [U_PRICING, MONEY, CHECKOUT],
  },
  {
    id: 'coupon-revoked-still-redeemable',
    file: `${D}catalog/coupons.ts`,
    find: 'if (!coupon || coupon.revokedAt !== null || ',
    replace: 'if (!coupon || ',
    tests: [CHECKOUT, COUPON_GUESSING, MONEY],
  },
  {
    id: 'coupon-expiry-boundary',
    file: `${D}catalog/coupons.ts`,
    find: 'coupon.expiresAt <= now)',
    replace: 'coupon.expiresAt < now)',
    tests: [CHECKOUT, MONEY, M_REFUNDS_COUPONS],
  },
  {
    id: 'proration-counts-time-already-used',
    file: `${D}billing/proration.ts`,
    find: 'Math.max(start, now.getTime())',
    replace: 'start',
    tests: [PRORATION, MIGRATION],
  },
  {
    id: 'proration-free-target-divides-by-zero',
    file: `${D}billing/proration.ts`,
    find: 'if (next.netUsdMinor <= 0)',
    replace: 'if (next.netUsdMinor < 0)',
    tests: [PRORATION, MIGRATION, M_PRORATION],
  },
  {
    id: 'proration-delay-at-old-price',
    file: `${D}billing/proration.ts`,
    find: '(period * BigInt(next.netUsdMinor))',
    replace: '(period * BigInt(old.netUsdMinor))',
    tests: [PRORATION, MIGRATION, M_PRORATION],
  },

  // Billing periods and renewals.
  {
    id: 'period-dunning-off-by-one',
    file: `${D}billing/billing-period.ts`,
    find: 'RETRY_DAYS[failedAttempts - 1]',
    replace: 'RETRY_DAYS[failedAttempts]',
    tests: [U_PERIOD, DUNNING],
  },
  {
    id: 'period-month-end-overflows',
    file: `${D}billing/billing-period.ts`,
    find: 'Math.min(anchor.getUTCDate(), lastDay)',
    replace: 'anchor.getUTCDate()',
    tests: [U_PERIOD, LIFECYCLE],
  },
  {
    id: 'period-year-rounded',
    file: `${D}billing/billing-period.ts`,
    find: 'Math.floor(totalMonths / 12)',
    replace: 'Math.round(totalMonths / 12)',
    tests: [U_PERIOD, LIFECYCLE],
  },
  {
    id: 'billing-renewal-keeps-failed-attempts',
    file: `${D}billing/renewal-outcome.ts`,
    find: 'period: p.period + 1,\n      failedAttempts: 0,',
    replace: 'period: p.period + 1,\n      failedAttempts: billing.failedAttempts,',
    tests: [DUNNING, LIFECYCLE],
  },
  {
    id: 'billing-retry-reuses-declined-attempt',
    file: `${D}billing/renewal-plan.ts`,
    find: 'key: `renewal:${t.id}:${period}:${failedAttempts}`',
    replace: 'key: `renewal:${t.id}:${period}`',
    tests: [DUNNING, LIFECYCLE],
  },
  {
    id: 'billing-overdue-retries-not-a-day-apart',
    file: `${D}billing/renewal-outcome.ts`,
    find: 'Math.max(retry.getTime(), p.at.getTime() + 86_400_000)',
    replace: 'retry.getTime()',
    tests: [DUNNING, LIFECYCLE],
  },
  {
    id: 'billing-book-other-period',
    file: `${D}billing/renewal-outcome.ts`,
    find: 'if (samePeriod && attempt) {',
    replace: 'if (attempt) {',
    tests: [RACE, CRASH, ATTEMPT_LEASE],
  },
  {
    id: 'billing-renewal-revives-cancelled-pending',
    file: `${D}billing/renewal-outcome.ts`,
    find: "status:\n        current.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' ? current.status : 'SUBSCRIPTION_STATUS_ACTIVE',\n      lastCharge: at,",
    replace: "status: 'SUBSCRIPTION_STATUS_ACTIVE',\n      lastCharge: at,",
    tests: [RACE, LIFECYCLE, M_RENEWAL_RACES],
  },
  {
    id: 'billing-decline-overrides-cancel',
    file: `${D}billing/renewal-outcome.ts`,
    find: 'if (!unchanged) return write;\n  report.declined++;',
    replace: 'report.declined++;',
    tests: [RACE, DUNNING, M_RENEWAL_RACES],
  },
  {
    id: 'billing-next-charge-same-period',
    file: `${D}billing/renewal-outcome.ts`,
    find: 'p.period + 1).toISOString()',
    replace: 'p.period).toISOString()',
    tests: [LIFECYCLE, DUNNING],
  },
  {
    id: 'billing-charge-free-period',
    file: `${D}billing/renewal-claim.ts`,
    find: "p.kind === 'charge' && p.quote.totalMinor > 0 && p.due.token !== null",
    replace: "p.kind === 'charge' && p.quote.totalMinor >= 0 && p.due.token !== null",
    tests: [LIFECYCLE, MONEY, M_RENEWAL_RACES],
  },
  {
    id: 'billing-charge-changed-price',
    file: `${D}billing/renewal-charge.ts`,
    find: 'if (a.amountMinor === p.quote.totalMinor && a.currency === p.quote.currency) return true;',
    replace: 'return true;',
    tests: [CRASH, RACE, M_RENEWAL_RACES],
  },
  {
    id: 'billing-trial-never-converts',
    file: `${D}billing/renewal-plan.ts`,
    find: "(t.status !== 'SUBSCRIPTION_STATUS_ACTIVE' && t.status !== 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL')",
    replace: "(t.status !== 'SUBSCRIPTION_STATUS_ACTIVE')",
    tests: [LIFECYCLE, CHECKOUT],
  },

  // Idempotency.
  {
    id: 'idempotency-no-conflict-on-other-request',
    file: `${D}idempotency.ts`,
    find: 'if (earlier.requestHash !== requestHash) {',
    replace: 'if (false) {',
    tests: [IDEM, IDEM_RETRIES],
  },
  {
    id: 'idempotency-in-progress-replayed',
    file: `${D}idempotency.ts`,
    find: "if (earlier.state === 'IN_PROGRESS') {",
    replace: 'if (false) {',
    tests: [IDEM, IDEM_RETRIES],
  },
  {
    id: 'attempts-record-retry-is-fresh',
    file: `${S}attempts-store.ts`,
    find: 'if (inserted) return { attempt: toAttempt(inserted) as AttemptOf<K>, fresh: true };',
    replace: 'return { attempt: (inserted ? toAttempt(inserted) : a) as AttemptOf<K>, fresh: true };',
    tests: [IDEM_RETRIES, FAULTS, REFUNDS, M_PROTOCOL],
  },
  {
    id: 'attempts-settle-without-open-condition',
    file: `${S}attempts-store.ts`,
    find: `.where('id', '=', id)
          .where('status', 'in', OPEN_STATUSES)
          .returning('id'),`,
    replace: `.where('id', '=', id)
          .returning('id'),`,
    tests: [FAULTS, IDEM_RETRIES, REFUNDS, M_PROTOCOL],
  },
  {
    id: 'attempts-open-refund-of-any-kind',
    file: `${S}attempts-store.ts`,
    find: ".where('transaction_id', '=', transactionId)\n        .where('kind', '=', kind)\n        .where('status', 'in', OPEN_STATUSES)",
    replace: `.where('transaction_id', '=', transactionId).where('status', 'in', OPEN_STATUSES)`,
    tests: [REFUNDS, FAULTS, VAULTED],
  },
  {
    id: 'idempotency-release-any-vendors-key',
    file: `${S}attempts-store.ts`,
    find: "await db.deleteFrom('idempotency_keys').$call(whereScope(scope)).where('idempotency_key', '=', key).execute();",
    replace: "await db.deleteFrom('idempotency_keys').where('idempotency_key', '=', key).execute();",
    tests: [IDEM, IDEM_RETRIES, ISOLATION, M_SCOPING],
  },

  // Cancel.
  {
    id: 'cancel-active-at-once',
    file: `${D}checkout/cancellations.ts`,
    find: "transaction.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' || choice.now",
    replace: "transaction.status === 'SUBSCRIPTION_STATUS_ACTIVE' || choice.now",
    tests: [CANCEL],
  },
  {
    id: 'cancel-twice-changes-again',
    file: `${D}checkout/cancellations.ts`,
    find: "'SUBSCRIPTION_STATUS_CANCELLED_PENDING',\n      'SUBSCRIPTION_STATUS_CANCELLED',",
    replace: "'SUBSCRIPTION_STATUS_CANCELLED',",
    tests: [CANCEL],
  },
  {
    id: 'cancel-onetime-payment',
    file: `${D}checkout/cancellations.ts`,
    find: "if (locked.type === 'ONETIME') {",
    replace: 'if (false) {',
    tests: [CANCEL],
  },

  // Licences.
  {
    id: 'licence-inactive-when-cancel-pending',
    file: `${D}catalog/licence-activations.ts`,
    find: "  'SUBSCRIPTION_STATUS_CANCELLED_PENDING',\n  'VAULTED_STATUS_ACTIVE',",
    replace: "  'VAULTED_STATUS_ACTIVE',",
    tests: [LICENCES],
  },
  {
    id: 'licence-key-case-sensitive',
    file: `${D}catalog/licence-activations.ts`,
    find: 'key.trim().toUpperCase()',
    replace: 'key.trim()',
    tests: [LICENCES],
  },

  // Vaulted charges.
  {
    id: 'vaulted-soft-decline-deactivates',
    file: `${D}payments/booking-a-vaulted-charge.ts`,
    find: 'if (!decline.permanent) return;',
    replace: '',
    tests: [VAULTED],
  },
  {
    id: 'vaulted-key-reused-for-other-amount',
    file: `${D}payments/planning-a-vaulted-charge.ts`,
    find: `attempt.kind === 'VAULTED' && attempt.amountMinor === quote.totalMinor && attempt.currency === quote.currency;`,
    replace: `attempt.kind === 'VAULTED' && attempt.currency === quote.currency;`,
    tests: [VAULTED, IDEM],
  },
  {
    id: 'vaulted-charge-inactive-method',
    file: `${D}payments/planning-a-vaulted-charge.ts`,
    find: "if (transaction.status !== 'VAULTED_STATUS_ACTIVE')",
    replace: 'if (false)',
    tests: [VAULTED],
  },
  {
    id: 'vaulted-charge-of-zero',
    file: `${D}payments/planning-a-vaulted-charge.ts`,
    find: 'if (quote.totalMinor <= 0) throw',
    replace: 'if (quote.totalMinor < 0) throw',
    tests: [VAULTED, M_VAULTED],
  },
  {
    id: 'vaulted-charge-keeps-last-charge',
    file: `${D}payments/booking-a-vaulted-charge.ts`,
    find: 'await repos.transactions.update(attempt.scope, plan.transactionId, { lastCharge: at.toISOString() });',
    replace: '',
    tests: [VAULTED, READ],
  },

  // The changed-transactions feed and scoping.
  {
    id: 'feed-mark-processed-loses-later-change',
    file: `${S}feed-store.ts`,
    find: ".where(sql.ref('listed_version'), '=', sql.ref('change_version'))",
    replace: '',
    tests: [FEED_RACE, CHANGED],
  },
  {
    id: 'feed-more-when-exactly-full',
    file: `${S}feed-store.ts`,
    find: 'more: rows.length > limit',
    replace: 'more: rows.length >= limit',
    tests: [CHANGED],
  },
  {
    id: 'feed-mark-other-vendors-row',
    file: `${S}feed-store.ts`,
    find: ".where('id', '=', id)\n        .$call(whereScope(scope))\n        .executeTakeFirst();",
    replace: ".where('id', '=', id).executeTakeFirst();",
    tests: [ISOLATION, CHANGED, M_SCOPING],
  },
  {
    id: 'feed-lists-every-vendor',
    file: `${S}feed-store.ts`,
    find: `.selectAll()
        .$call(whereScope({ vendorId, environment }))
        // A literal`,
    replace: `.selectAll()
        // A literal`,
    tests: [ISOLATION, CHANGED],
  },
  {
    id: 'transactions-update-unscoped',
    file: `${S}transactions-store.ts`,
    find: "let query = db\n            .updateTable('transactions')\n            .set(set)\n            .where('id', '=', id)\n            .$call(whereScope({ vendorId, environment }));",
    replace: `let query = db.updateTable('transactions').set(set).where('id', '=', id);`,
    tests: [ISOLATION, UPDATE, M_SCOPING],
  },
  {
    id: 'transactions-change-version-not-bumped',
    file: `${S}transactions-store.ts`,
    find: 'change_version: sql<number>`change_version + 1`,',
    replace: '',
    tests: [FEED_RACE, CHANGED],
  },
  {
    id: 'transactions-search-ignores-assigned-email',
    file: `${S}transactions-store.ts`,
    find: `.unionAll(own.where('assigned_email_lower', '=', lower).where('email_lower', '<>', lower))`,
    replace: '',
    tests: [UPDATE, READ],
  },
  {
    id: 'scope-vendor-only',
    file: `${S}scope.ts`,
    find: "query.where('vendor_id', '=', scope.vendorId).where('environment', '=', scope.environment)",
    replace: "query.where('vendor_id', '=', scope.vendorId)",
    tests: [ISOLATION],
  },

  // The billing store.
  {
    id: 'billing-store-claims-leased-rows',
    file: `${S}billing-claims.ts`,
    find: "eb('billing_lease_until', '<', q.now)",
    replace: "eb('billing_lease_until', '>', q.now)",
    tests: [RACE, CRASH, LIFECYCLE],
  },
  {
    id: 'billing-store-sandbox-claims-everyone',
    file: `${S}billing-claims.ts`,
    find: "if (q.sandboxVendorId) due = due.$call(whereScope({ vendorId: q.sandboxVendorId, environment: 'sandbox' }));",
    replace: '',
    tests: [CLOCKS, DUNNING],
  },
  {
    id: 'billing-store-due-boundary',
    file: `${S}billing-claims.ts`,
    find: ".where('next_charge', '<=', q.dueBy)",
    replace: ".where('next_charge', '<', q.dueBy)",
    tests: [LIFECYCLE, DUNNING],
  },
  {
    id: 'billing-store-renewal-not-in-feed',
    file: `${S}billing-store.ts`,
    find: 'feed_pending = case when v.flag is null then transactions.feed_pending else 1 end',
    replace: 'feed_pending = transactions.feed_pending',
    tests: [LIFECYCLE, FEED_RACE, CHANGED],
  },
  {
    id: 'billing-store-expire-everyones-offers',
    file: `${S}billing-store.ts`,
    find: "if (sandboxVendorId) query = query.$call(whereScope({ vendorId: sandboxVendorId, environment: 'sandbox' }));",
    replace: '',
    tests: [M_SANDBOX_OFFERS, VAULTED],
  },

  // Stripe and its events (issue 13).
  {
    id: 'stripe-fee-ignored',
    file: `${G}stripe-outcomes.ts`,
    find: 'if (balance.currency === paymentCurrency.toLowerCase() || !balance.exchange_rate) return balance.fee;',
    replace: 'if (balance.currency === paymentCurrency.toLowerCase() || !balance.exchange_rate) return 0;',
    tests: [STRIPE_PAYMENTS],
  },
  {
    id: 'stripe-off-session-key-not-the-attempt',
    file: `${G}stripe-gateway.ts`,
    find: '{ idempotencyKey: request.attemptId },',
    replace: '{ idempotencyKey: `${request.attemptId}:${Math.random()}` },',
    tests: [STRIPE_FAULTS],
  },
  {
    id: 'stripe-charges-again-after-key-expiry',
    file: `${G}stripe-gateway.ts`,
    find: 'if (request.recordedAt && now().getTime() - Date.parse(request.recordedAt) > LOOK_BEFORE_CHARGING_AFTER_MS) {',
    replace: 'if (false) {',
    tests: [STRIPE_PAYMENTS, STRIPE_FAULTS],
  },
  {
    id: 'stripe-abandoned-session-never-cancelled',
    file: `${G}stripe-outcomes.ts`,
    find: "return expired(calls, intent.created) ? cancelIntent(calls, intent.id) : { status: 'UNKNOWN' };",
    replace: "return { status: 'UNKNOWN' };",
    tests: [STRIPE_PAYMENTS],
  },
  {
    id: 'refund-reconciled-without-its-payment',
    file: `${D}payments/booking-a-refund.ts`,
    find: 'lookupHint: (attempt) => attempt.plan.chargeReference,',
    replace: 'lookupHint: () => null,',
    tests: [STRIPE_FAULTS],
  },
  {
    id: 'won-dispute-booked-on-every-event',
    file: `${D}payments/undoing-a-reversal.ts`,
    find: 'if (earlier) return earlier;',
    replace: '',
    tests: [STRIPE_EVENTS, EVENTS, ANY_ORDER],
  },
  {
    id: 'dispute-books-the-whole-payment',
    file: `${D}processor/dispute-event.ts`,
    find: 'amountMinor: event.amountMinor,',
    replace: 'amountMinor: payment.amountTotalMinor,',
    tests: [STRIPE_EVENTS, EVENTS, ANY_ORDER],
  },
  // ---- Issue 32: the reversal module (refunds in parts, processor reversals, undoing)
  {
    id: 'reversal-part-rounded-on-its-own',
    file: `${D}payments/reversal-amounts.ts`,
    find: 'const part = (field: SplitField) => taken(field) - scaled(payment[field], after, total);',
    replace: 'const part = (field: SplitField) => 0 - scaled(payment[field], amountMinor, total);',
    tests: [U_REVERSALS, PARTIAL],
  },
  {
    id: 'reversal-rounds-down',
    file: `${D}payments/reversal-amounts.ts`,
    find: 'const result = Number((2n * magnitude * BigInt(part) + BigInt(whole)) / (2n * BigInt(whole)));',
    replace: 'const result = Number((2n * magnitude * BigInt(part)) / (2n * BigInt(whole)));',
    tests: [U_REVERSALS, PARTIAL],
  },
  {
    id: 'reversal-undoing-not-counted',
    file: `${D}payments/reversal-amounts.ts`,
    find: 'return entries.filter((e) => direct.has(e.id) || (e.reversesEntryId !== null && direct.has(e.reversesEntryId)));',
    replace: 'return entries.filter((e) => direct.has(e.id));',
    tests: [U_REVERSALS, ANY_ORDER, EVENTS],
  },
  {
    id: 'partial-refund-ends-the-transaction',
    file: `${D}payments/reversing-a-payment.ts`,
    find: "if (!fully || !latest || transaction.type === 'VAULTED') return {};",
    replace: "if (!latest || transaction.type === 'VAULTED') return {};",
    tests: [PARTIAL, ANY_ORDER],
  },
  {
    id: 'earlier-period-refund-ends-the-subscription',
    file: `${D}payments/reversing-a-payment.ts`,
    find: "if (!fully || !latest || transaction.type === 'VAULTED') return {};",
    replace: "if (!fully || transaction.type === 'VAULTED') return {};",
    tests: [PARTIAL, REFUNDS],
  },
  {
    id: 'failed-refund-leaves-purchase-refunded',
    file: `${D}payments/undoing-a-reversal.ts`,
    find: "const paidAgain =\n    reversal.type !== 'CHARGEBACK' &&\n    transaction.type === 'ONETIME' &&\n    transaction.status === 'TRANSACTION_STATUS_REFUNDED';",
    replace: 'const paidAgain = false;',
    tests: [ANY_ORDER, EVENTS],
  },
  {
    id: 'won-dispute-pays-again',
    file: `${D}payments/undoing-a-reversal.ts`,
    find: "const paidAgain =\n    reversal.type !== 'CHARGEBACK' &&\n    transaction.type === 'ONETIME'",
    replace: "const paidAgain = transaction.type === 'ONETIME'",
    tests: [ANY_ORDER, EVENTS],
  },
  {
    id: 'partial-chargeback-keeps-subscription',
    file: `${D}payments/reversing-a-payment.ts`,
    find: "if (transaction.type === 'SUBSCRIPTION')\n    return { ...patch, status: 'SUBSCRIPTION_STATUS_CANCELLED', nextCharge: null };",
    replace: '',
    tests: [EVENTS, ANY_ORDER, DISPUTE_AFTER_REFUND],
  },
  {
    id: 'refused-reversal-set-aside-at-once',
    file: `${D}processor/run-due-events.ts`,
    find: 'if (refused && stored.tries + 1 >= REFUSED_TRIES) {',
    replace: 'if (refused) {',
    tests: [EVENTS, ANY_ORDER],
  },
  {
    id: 'refund-record-never-refundable',
    file: 'src/http/routes/v1/refund-transaction.ts',
    find: 'result.remainingMinor > 0)]',
    replace: 'false)]',
    tests: [PARTIAL, REFUNDS],
  },
  {
    id: 'refund-amount-from-another-payment',
    file: `${D}payments/planning-a-refund.ts`,
    find: 'const state = payment ? reversalState(entries, payment) : refundableNow(transaction, entries);',
    replace: 'const state = refundableNow(transaction, entries) ?? (payment && reversalState(entries, payment));',
    tests: [PARTIAL, REFUNDS],
  },
  // ---- Issue 32: the admin tool's and the panel's form checks
  {
    id: 'admin-form-token-checked-on-refund-only',
    file: 'src/http/pages/admin/admin-transaction.ts',
    find: "if (!services.links.formTokenMatches(token, form.formToken ?? ''))",
    replace: "if (form.action === 'refund' && !services.links.formTokenMatches(token, form.formToken ?? ''))",
    tests: [ADMIN],
  },
  {
    id: 'admin-refund-amount-ignored',
    file: 'src/http/pages/admin/admin-transaction.ts',
    find: 'const request = { amount: typedAmount(form.amount), reason: form.reason || undefined };',
    replace: 'const request = { reason: form.reason || undefined };',
    tests: [PARTIAL_PAGES, ADMIN],
  },
  {
    id: 'panel-refund-form-sent-twice',
    file: 'src/http/pages/panel/transaction-routes.ts',
    find: "const seenOf = (form: FormBody) => ({ entries: /^\\d{1,6}$/.test(form.version ?? '') ? Number(form.version) : -1 });",
    replace: 'const seenOf = (_form: FormBody) => undefined;',
    tests: [PANEL_DASHBOARD, PARTIAL_PAGES],
  },
  {
    id: 'panel-refund-amount-ignored',
    file: 'src/http/pages/panel/transaction-routes.ts',
    find: 'const refund = { amount: typedAmount(form.amount), reason: form.reason || undefined };',
    replace: 'const refund = { reason: form.reason || undefined };',
    tests: [PARTIAL_PAGES, PANEL_DASHBOARD],
  },
  {
    id: 'panel-forms-without-csrf',
    file: 'src/http/pages/panel/panel-context.ts',
    find: "if (request.method === 'POST' && !same(((request.body ?? {}) as FormBody).csrf ?? '', session.csrfToken)) {",
    replace:
      "if (request.method === 'PUT' && !same(((request.body ?? {}) as FormBody).csrf ?? '', session.csrfToken)) {",
    tests: [PANEL, PANEL_DASHBOARD],
  },

  // ---- Issue 32: the classes of bugs planted from outside (dates, disputes after refunds, fees, lookups, leases, notices, declines)
  {
    id: 'reversal-dated-by-real-time',
    file: `${D}payments/reversing-a-payment.ts`,
    find: 'datedAfter([payment, ...state.reversals], request.at)',
    replace: 'datedAfter([payment, ...state.reversals], new Date())',
    tests: [SANDBOX_REVERSALS],
  },
  {
    id: 'sandbox-offset-applied-to-production',
    file: `${D}clock.ts`,
    find: "const offset = scope?.environment === 'sandbox' ? offsets.get(scope.vendorId) : undefined;",
    replace: 'const offset = scope ? offsets.get(scope.vendorId) : undefined;',
    tests: [SANDBOX_REVERSALS],
  },
  {
    id: 'chargeback-fully-judged-on-its-part',
    file: `${D}payments/reversing-a-payment.ts`,
    find: 'const fully = state.reversedMinor + request.amountMinor >= payment.amountTotalMinor;',
    replace: 'const fully = request.amountMinor >= payment.amountTotalMinor;',
    tests: [DISPUTE_AFTER_REFUND],
  },
  {
    id: 'chargeback-skips-the-room-check',
    file: `${D}payments/reversing-a-payment.ts`,
    find: 'const room = wonAs ? payment.amountTotalMinor : state.remainingMinor;',
    replace: "const room = wonAs || request.kind === 'CHARGEBACK' ? payment.amountTotalMinor : state.remainingMinor;",
    tests: [DISPUTE_AFTER_REFUND],
  },
  {
    id: 'stripe-fee-rate-the-wrong-way',
    file: `${G}stripe-outcomes.ts`,
    find: 'return Math.round(balance.fee / balance.exchange_rate);',
    replace: 'return Math.round(balance.fee * balance.exchange_rate);',
    tests: [ANY_ORDER],
  },
  {
    id: 'refund-takes-the-whole-fee',
    file: `${D}payments/reversal-amounts.ts`,
    find: "transactionFeeMinor: part('transactionFeeMinor'),",
    replace: 'transactionFeeMinor: -payment.transactionFeeMinor,',
    tests: [ANY_ORDER],
  },
  {
    id: 'stripe-found-intent-not-retrieved',
    file: `${G}stripe-outcomes.ts`,
    find: 'return intentOutcome(await retrieveIntent(calls, intent.id));',
    replace: 'return intentOutcome(intent);',
    tests: [FOUND_BY_METADATA],
  },
  {
    id: 'stripe-charges-again-without-looking',
    file: `${G}stripe-gateway.ts`,
    find: 'if (request.recordedAt && now().getTime() - Date.parse(request.recordedAt) > LOOK_BEFORE_CHARGING_AFTER_MS) {',
    replace: 'if (false) {',
    tests: [FOUND_BY_METADATA],
  },
  {
    id: 'unresolved-by-the-vendor-clock',
    file: `${D}payments/reconciling-an-attempt.ts`,
    find: 'const old = deps.clock.now().getTime() - Date.parse(attempt.createdAt) > UNRESOLVED_AFTER_MS;',
    replace:
      'const old = deps.clock.now(attempt.scope).getTime() - Date.parse(attempt.createdAt) >= UNRESOLVED_AFTER_MS;',
    tests: [UNKNOWN_OUTCOMES],
  },
  {
    id: 'vaulted-attempt-at-sandbox-time',
    file: `${D}payments/vaulted-charges.ts`,
    find: 'const now = deps.clock.now();',
    replace: 'const now = deps.clock.now(scope);',
    tests: [UNKNOWN_OUTCOMES],
  },
  {
    id: 'notice-key-without-its-date',
    file: `${D}notifications/scheduled-notices.ts`,
    find: '=>\n  `${kind}:${transactionId}:${nextCharge}`;',
    replace: '=> `${kind}:${transactionId}`;',
    tests: [NOTICES],
  },
  {
    id: 'notice-key-by-year-of-scan',
    file: `${D}notifications/scheduled-notices.ts`,
    find: 'key: noticeKey(d.kind, d.transactionId, d.nextCharge),',
    replace: 'key: noticeKey(d.kind, d.transactionId, new Date(now).toISOString().slice(0, 4)),',
    tests: [NOTICES],
  },
  {
    id: 'outbox-late-owner-overwrites',
    file: `${S}customer-emails-store.ts`,
    find: "        .where('lease_owner', '=', owner)\n",
    replace: '',
    tests: [OUTBOX_LEASE],
  },
  {
    id: 'renewal-late-owner-reopens-attempt',
    file: `${S}billing-store.ts`,
    find: " and charge_attempts.status in ('PENDING', 'UNKNOWN')",
    replace: '',
    tests: [ATTEMPT_LEASE],
  },
  {
    id: 'decline-email-keyed-per-period',
    file: `${D}billing/renewal-outcome.ts`,
    find: 'key: `${kind}:${p.key}`,',
    replace: 'key: `${kind}:renewal:${t.id}:${p.period}`,',
    tests: [DUNNING_EMAILS],
  },
  {
    id: 'final-decline-announces-a-retry',
    file: `${D}billing/renewal-outcome.ts`,
    find: 'emails?.push(failure(null));',
    replace: 'emails?.push(failure(t.nextCharge));',
    tests: [DUNNING_EMAILS],
  },
  // The platform's fee (issue 34): taken at booking, out of the vendor's income, in the payment's currency.
  {
    id: 'platform-fee-not-out-of-income',
    file: `${D}payments/ledger.ts`,
    find: 'incomeMinor: quote.netMinor - paid.feeMinor - serviceFeeMinor,',
    replace: 'incomeMinor: quote.netMinor - paid.feeMinor,',
    tests: [FEE, M_LEDGER],
  },
  {
    id: 'platform-fee-on-the-gross',
    file: `${D}payments/ledger.ts`,
    find: '{ currency: quote.currency, netMinor: quote.netMinor, processorFeeMinor: paid.feeMinor },',
    replace:
      '{ currency: quote.currency, netMinor: quote.netMinor + quote.taxMinor, processorFeeMinor: paid.feeMinor },',
    tests: [FEE],
  },
  {
    id: 'cross-rate-the-wrong-way',
    file: `${D}money/exchange-rates.ts`,
    find: 'let numerator = target.units * 10n ** BigInt(source.scale);\n  let denominator = source.units * 10n ** BigInt(target.scale);',
    replace:
      'let numerator = source.units * 10n ** BigInt(target.scale);\n  let denominator = target.units * 10n ** BigInt(source.scale);',
    tests: [U_FEE, FEE, U_PRICING],
  },
  {
    id: 'platform-fee-rounded-apart',
    file: `${D}money/platform-fee.ts`,
    find: 'numerator = numerator * fixed.denominator + fixed.numerator * denominator;\n    denominator *= fixed.denominator;',
    replace:
      'numerator = (numerator / denominator) * fixed.denominator + fixed.numerator;\n    denominator = fixed.denominator;',
    tests: [U_FEE],
  },
  {
    id: 'platform-fee-uncapped',
    file: `${D}money/platform-fee.ts`,
    find: 'return Math.min(minor, keeps);',
    replace: 'return minor;',
    tests: [U_FEE],
  },
  {
    id: 'platform-fee-ignores-the-vendors-own',
    file: `${D}payments/platform-fees.ts`,
    find: 'return own ? { platformFee: parsePlatformFee(own), rates: terms.rates } : terms;',
    replace: 'return terms;',
    tests: [FEE],
  },
  {
    id: 'renewal-fee-read-for-the-wrong-vendor',
    file: `${D}billing/renewal-plan.ts`,
    find: 'const fee = await feeOf(ctx, repos, t.vendorId, prices);',
    replace: "const fee = await feeOf(ctx, repos, '', prices);",
    tests: [FEE],
  },
  // Payout statements (issue 34): each entry once, payments after the hold, refunds at once, a negative total carried.
  {
    id: 'payout-hold-ignored',
    file: `${S}payout-coverage.ts`,
    find: 'ledger_entries.created_at < ${r.heldFrom} or',
    replace: 'ledger_entries.created_at < ${r.until} or',
    tests: [PAYOUTS],
  },
  {
    id: 'payout-hold-off-by-one',
    file: `${S}payout-coverage.ts`,
    find: 'ledger_entries.created_at < ${r.heldFrom} or',
    replace: 'ledger_entries.created_at <= ${r.heldFrom} or',
    tests: [PAYOUT_RANGES],
  },
  {
    id: 'payout-refunds-held',
    file: `${S}payout-coverage.ts`,
    find: 'ledger_entries.income_minor < 0)',
    replace: 'ledger_entries.income_minor < -1e15)',
    tests: [PAYOUTS],
  },
  {
    id: 'payout-covers-again',
    file: `${S}payout-coverage.ts`,
    find: '...(latest ? [eb.not(inside(latest))] : [])',
    replace: '',
    tests: [PAYOUTS],
  },
  {
    id: 'payout-by-date-not-booking',
    file: `${S}payout-coverage.ts`,
    find: '(ledger_entries.book_seq <= ${r.coversTo} and ',
    replace: '(',
    tests: [PAYOUT_RANGES],
  },
  {
    id: 'payout-range-top-left-out',
    file: `${S}payout-coverage.ts`,
    find: 'ledger_entries.book_seq <= ${r.coversTo}',
    replace: 'ledger_entries.book_seq < ${r.coversTo}',
    tests: [PAYOUTS],
  },
  {
    id: 'payout-no-ledger-lock',
    file: `${S}payout-coverage.ts`,
    find: "if (dialect === 'postgres') await sql`lock table ledger_entries in share mode`.execute(db);",
    replace: '',
    tests: [PAYOUT_RANGES],
  },
  {
    id: 'payout-listed-covered-again',
    file: `${S}payout-coverage.ts`,
    find: 'eb.and([eb.not(listed), ...(latest',
    replace: 'eb.and([...(latest',
    tests: [PAYOUT_RANGES_MIGRATION],
  },
  {
    id: 'payout-window-backwards',
    file: `${D}books/payout-statement.ts`,
    find: 'if (last && end < last.until)',
    replace: 'if (false)',
    tests: [PAYOUT_RANGES],
  },
  {
    id: 'payout-window-not-held',
    file: `${D}books/payout-statement.ts`,
    find: 'heldFrom: max(window.heldFrom, last.heldFrom)',
    replace: 'heldFrom: window.heldFrom',
    tests: [U_PAYOUT_WINDOW],
  },
  {
    id: 'payout-carry-lost',
    file: `${D}books/payout-statement.ts`,
    find: 'const owed = sums.incomeMinor + carriedInMinor;',
    replace: 'const owed = sums.incomeMinor;',
    tests: [PAYOUTS],
  },
  {
    id: 'payout-real-clock',
    file: `${D}books/payouts.ts`,
    find: 'const now = deps.clock.now({ vendorId, environment });',
    replace: 'const now = deps.clock.now();',
    tests: [PAYOUTS],
  },
  // Tax returns (issue 34): where a sale is filed, at which day's rate, which way the rate goes.
  {
    id: 'tax-domestic-in-oss',
    file: `${D}books/tax-report.ts`,
    find: 'if (g.country === g.sellerCountry)',
    replace: 'if (g.country === g.sellerCountry && false)',
    tests: [TAX_REPORT],
  },
  {
    id: 'tax-reverse-charge-in-oss',
    file: `${D}books/tax-report.ts`,
    find: "if (g.reverseCharge) return { scheme: 'oss', section: 'reverse-charge', jurisdiction: g.country };",
    replace: '',
    tests: [TAX_REPORT],
  },
  {
    id: 'tax-rates-of-a-later-day',
    file: `${D}money/rate-history.ts`,
    find: '.filter((t) => t.date <= day && t.date >= weekBefore)',
    replace: '.filter((t) => t.date >= weekBefore)',
    tests: [U_TAX_PERIODS, TAX_REPORT],
  },
  {
    id: 'tax-euros-the-wrong-way',
    file: `${D}money/rate-history.ts`,
    find: "const rate = minorRate(currency, 'EUR', rates);",
    replace: "const rate = minorRate('EUR', currency, rates);",
    tests: [U_TAX_PERIODS],
  },
  {
    id: 'tax-period-without-its-end',
    file: `${S}taxes-store.ts`,
    find: ".where('e.created_at', '<', f.to);",
    replace: ';',
    tests: [TAX_REPORT],
  },
  // Route schemas compiled at first use (src/http/schema-compilers.ts): a failed check must still refuse.
  {
    id: 'lazy-validator-loses-its-errors',
    file: 'src/http/schema-compilers.ts',
    find: 'errors: { get: () => compiled?.errors },',
    replace: 'errors: { get: () => undefined },',
    tests: ['test/api/bad-input.test.ts'],
  },
  // Passwords (decisions §44): a stored hash at its own cost, new ones at the operator's, no weak ones taken.
  {
    id: 'password-checked-at-server-cost',
    file: `${D}accounts/panel-secrets.ts`,
    find: "const actual = await derive(password, Buffer.from(salt, 'base64url'), options);",
    replace: "const actual = await derive(password, Buffer.from(salt, 'base64url'), own);",
    tests: [PASSWORDS],
  },
  {
    id: 'password-unknown-account-answered-at-once',
    file: `${D}accounts/panel-secrets.ts`,
    find: 'await derive(password, randomBytes(16), own);',
    replace: '',
    tests: [PASSWORDS],
  },
  {
    id: 'password-cost-not-taken',
    file: `${D}accounts/panel-secrets.ts`,
    find: 'const own: ScryptOptions = { N: 2 ** cost, r: R, p: P };',
    replace: 'const own: ScryptOptions = { N: 2 ** PASSWORD_COSTS.standard, r: R, p: P };',
    tests: [PASSWORDS],
  },
  {
    id: 'password-weak-stored-cost-taken',
    file: `${D}accounts/panel-secrets.ts`,
    find: 'log2 < PASSWORD_COSTS.min ||',
    replace: 'log2 < 1 ||',
    tests: [PASSWORDS],
  },
  {
    id: 'password-cost-range-unchecked',
    file: 'src/config.ts',
    find: 'if (cost < min || cost > max)',
    replace: 'if (cost < 1)',
    tests: [U_CONFIG],
  },
  // The operator's console (issue 34): who gets in, for how long, what a form needs, which statement.
  {
    id: 'console-session-as-long-as-a-vendors',
    file: `${D}accounts/operator-accounts.ts`,
    find: 'export const OPERATOR_SESSION_MS = 8 * 3600_000;',
    replace: 'export const OPERATOR_SESSION_MS = 12 * 3600_000;',
    tests: [CONSOLE],
  },
  {
    id: 'console-form-without-its-token',
    file: `${H}operator/operator-routing.ts`,
    find: "if (request.method === 'POST' && !same(",
    replace: "if (request.method === 'NONE' && !same(",
    tests: [CONSOLE],
  },
  {
    id: 'console-new-password-keeps-sessions',
    file: `${S}operators-store.ts`,
    find: "await db.deleteFrom('operator_sessions').where('user_id', '=', userId).execute();",
    replace: '',
    tests: [CONSOLE],
  },
  {
    id: 'console-statement-of-the-other-environment',
    file: `${H}operator/books-routes.ts`,
    find: 'return statement?.environment === environment ? statement : undefined;',
    replace: 'return statement;',
    tests: [CONSOLE],
  },
  {
    id: 'panel-tax-csv-of-every-vendor',
    file: `${H}panel/tax-routes.ts`,
    find: 'return sendTaxReturnCsv(services, reply, { query, environment, vendorId: session.user.vendorId });',
    replace: 'return sendTaxReturnCsv(services, reply, { query, environment, vendorId: query.vendor || undefined });',
    tests: [PANEL_TAXES],
  },
  {
    id: 'rates-history-keeps-the-old-day',
    file: `${D}money/rate-history.ts`,
    find: 'for (const t of imported) byDate.set(t.date, t);',
    replace: 'for (const t of imported) if (!byDate.has(t.date)) byDate.set(t.date, t);',
    tests: [RATES_CLI],
  },
  // SDK (issue 35)
  {
    id: 'sdk-new-idempotency-key-per-retry',
    file: 'packages/client/src/transport.ts',
    find: 'const outcome = await this.#try(`${this.#url}/${api}${path}`, { ...init, signal: options.signal }, request);',
    replace:
      "const fresh = idempotencyKey === undefined ? headers : { ...headers, 'idempotency-key': globalThis.crypto.randomUUID() };\n      const outcome = await this.#try(`${this.#url}/${api}${path}`, { ...init, headers: fresh, signal: options.signal }, request);",
    tests: [SDK_RETRIES],
  },
  {
    id: 'sdk-retry-after-ignored',
    file: 'packages/client/src/transport.ts',
    find: 'const wait = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.#backoff(attempt);',
    replace: 'const wait = this.#backoff(attempt);',
    tests: [SDK_RETRIES],
  },
  {
    id: 'sdk-4xx-retried',
    file: 'packages/client/src/transport.ts',
    find: 'return status === 409 && code !== undefined && RETRIED_CONFLICTS.has(code);',
    replace: 'return status >= 400 && code !== undefined;',
    tests: [SDK_RETRIES],
  },
  {
    id: 'sdk-5xx-not-retried',
    file: 'packages/client/src/transport.ts',
    find: 'if (status >= 500) return true;',
    replace: 'if (status > 503) return true;',
    tests: [SDK_RETRIES],
  },
  {
    id: 'sdk-lost-answer-not-retried',
    file: 'packages/client/src/transport.ts',
    find: 'const retried = error.status === 0 ? !options.signal?.aborted : isRetried(error.status, error.code);',
    replace: 'const retried = isRetried(error.status, error.code);',
    tests: [SDK_RETRIES],
  },
  {
    id: 'sdk-change-marked-before-its-body',
    file: 'packages/client/src/changes.ts',
    find: 'yield change;\n      await feed.mark(change.id, undefined);',
    replace: 'await feed.mark(change.id, undefined);\n      yield change;',
    tests: [SDK_CHANGES],
  },
  {
    id: 'sdk-change-flag-of-one-spelling',
    file: 'packages/client/src/normalise.ts',
    find: "either<string | null>(object, 'changeStatus', 'changedStatus')",
    replace: "either<string | null>(object, 'changeStatus')",
    tests: [SDK_CHANGES],
  },
  {
    id: 'sdk-assigned-email-of-one-spelling',
    file: 'packages/client/src/normalise.ts',
    find: "...(rest as unknown as Omit<Transaction, 'raw'>),\n    assignedEmail: either<string>(loose, 'assignedEmail', 'assignEmail'),",
    replace:
      "...(rest as unknown as Omit<Transaction, 'raw'>),\n    assignedEmail: either<string>(loose, 'assignedEmail'),",
    tests: [SDK_CALLS],
  },
  {
    id: 'sdk-webhook-signed-over-the-body-alone',
    file: 'packages/client/src/webhooks.ts',
    find: 'const prefix = encoder.encode(`${id}.${timestamp}.`);',
    replace: "const prefix = encoder.encode('');",
    tests: [SDK_WEBHOOKS],
  },
  {
    id: 'sdk-webhook-secret-text-as-key',
    file: 'packages/client/src/webhooks.ts',
    find: "const key = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);",
    replace: 'const key = encoder.encode(secret);',
    tests: [SDK_WEBHOOKS],
  },
  {
    id: 'sdk-webhook-timestamp-unchecked',
    file: 'packages/client/src/webhooks.ts',
    find: 'checkTimestamp(timestamp, options.now ?? Date.now(), options.toleranceSeconds ?? 300);',
    replace: '',
    tests: [SDK_WEBHOOKS],
  },
  {
    id: 'sdk-webhook-first-signature-only',
    file: 'packages/client/src/webhooks.ts',
    find: "for (const candidate of signatures.split(' ')) {",
    replace: "for (const candidate of signatures.split(' ').slice(0, 1)) {",
    tests: [SDK_WEBHOOKS],
  },
  {
    id: 'sdk-change-feed-stops-after-one-page',
    file: 'packages/client/src/changes.ts',
    find: 'if (page.more || (page.changes.length > 0 && watch)) continue;',
    replace: 'if (page.changes.length > 0 && watch) continue;',
    tests: [SDK_CHANGES],
  },
  {
    id: 'sdk-error-without-its-request-id',
    file: 'packages/client/src/transport.ts',
    find: "requestId: field(body, 'requestId') ?? response.headers.get('x-request-id') ?? undefined,",
    replace: 'requestId: undefined,',
    tests: [SDK_CALLS],
  },
  // Going live (issue 35)
  {
    id: 'golive-payments-off-not-said',
    file: 'src/http/pages/panel/panel-notices.ts',
    find: '  if (processor === null)',
    replace: "  if (processor === null && environment === 'sandbox')",
    tests: ['test/browser/panel-going-live.test.ts'],
  },
  {
    id: 'golive-events-refused-not-said',
    file: 'src/http/pages/panel/panel-notices.ts',
    find: 'keys.webhookSecret) return undefined;',
    replace: 'keys.publishableKey) return undefined;',
    tests: ['test/browser/panel-going-live.test.ts'],
  },
  {
    id: 'golive-doctor-fix-said-twice',
    file: 'src/cli/commands/doctor.ts',
    find: 'no webhook signing secret (${prefix}WEBHOOK_SECRET): run ${setup}`',
    replace:
      'no webhook signing secret (${prefix}WEBHOOK_SECRET): run ${setup}; webhook signing secret not set (run ${setup})`',
    tests: ['test/cli/doctor.test.ts'],
  },
  {
    id: 'golive-doctor-stripe-unchecked-without-database',
    file: 'src/cli/commands/doctor.ts',
    find: 'if (config.stripe[environment]) checks.push(await stripeCheck(environment, config));',
    replace: 'void environment;',
    tests: ['test/cli/doctor.test.ts'],
  },
  {
    id: 'golive-stripe-unreachable-raw',
    file: 'src/gateways/stripe-setup.ts',
    find: "if (e?.type === 'StripeConnectionError') {",
    replace: "if (e?.type === 'StripeConnectionErrorOfOld') {",
    tests: ['test/cli/stripe-setup-cli.test.ts', 'test/cli/doctor.test.ts'],
  },
  {
    id: 'golive-setup-again-without-sandbox',
    file: 'src/cli/commands/stripe.ts',
    find: "setup${opts.sandbox ? ' --sandbox' : ''}\\` again.",
    replace: 'setup\\` again.',
    tests: ['test/cli/stripe-setup-cli.test.ts'],
  },
  {
    id: 'golive-rates-dated-today',
    file: 'src/domain/reports/dashboard-overview.ts',
    find: 'ratesDate: deps.rates.date,',
    replace: 'ratesDate: now.toISOString().slice(0, 10),',
    tests: ['test/api/panel-usd-rates.test.ts'],
  },
  {
    id: 'golive-rate-inverted',
    file: 'src/domain/reports/usd-conversion.ts',
    find: 'const numerator = usd.units * 10n ** BigInt(source.scale);\n  const denominator = source.units * 10n ** BigInt(usd.scale);',
    replace:
      'const denominator = usd.units * 10n ** BigInt(source.scale);\n  const numerator = source.units * 10n ** BigInt(usd.scale);',
    tests: ['test/api/panel-usd-rates.test.ts'],
  },
  {
    id: 'golive-small-rate-four-decimals',
    file: 'src/domain/reports/usd-conversion.ts',
    find: 'while (scaled < 10_000n && decimals < 12) {',
    replace: 'while (scaled < 0n && decimals < 12) {',
    tests: ['test/api/panel-usd-rates.test.ts'],
  },
  // Client script events (issue 35)
  {
    id: 'cs-origin-check-skipped',
    file: 'src/widget/widget.ts',
    find: 'event.source !== frame.contentWindow || event.origin !== url.origin ||',
    replace: 'event.source !== frame.contentWindow ||',
    tests: ['test/browser/checkout-events.test.ts'],
  },
  {
    id: 'cs-source-check-skipped',
    file: 'src/widget/widget.ts',
    find: 'event.source !== frame.contentWindow || event.origin !== url.origin ||',
    replace: 'event.origin !== url.origin ||',
    tests: ['test/browser/checkout-events.test.ts'],
  },
  {
    id: 'cs-transaction-id-glued-on',
    file: 'src/widget/widget.ts',
    find: "success.searchParams.set('transaction_id', data.transactionId);\n        location.assign(success);",
    replace: 'location.assign(`${success.href}?transaction_id=${data.transactionId}`);',
    tests: ['test/browser/checkout-events.test.ts'],
  },
  {
    id: 'cs-success-url-after-failed',
    file: 'src/widget/widget.ts',
    find: "else if (data.type === 'failed') emit('checkout.failed', productId, data);\n    else if (data.type === 'paid' && !paid) {",
    replace: "else if ((data.type === 'paid' || data.type === 'failed') && !paid) {",
    tests: ['test/browser/checkout-events.test.ts'],
  },
  {
    id: 'cs-javascript-url-accepted',
    file: 'src/widget/widget.ts',
    find: '/^https?:$/.test(url.protocol)',
    replace: '/^[a-z]+:$/.test(url.protocol)',
    tests: ['test/widget/widget-build.test.ts', 'test/browser/checkout-events.test.ts'],
  },
  {
    id: 'cs-paid-heard-twice',
    file: 'src/widget/widget.ts',
    find: "data.type === 'paid' && !paid",
    replace: "data.type === 'paid'",
    tests: ['test/browser/checkout-events.test.ts'],
  },
  {
    id: 'cs-decline-not-told',
    file: 'src/http/pages/checkout/checkout-purchase.ts',
    find: 'declined: true,',
    replace: '',
    tests: ['test/browser/checkout-events.test.ts'],
  },
  {
    id: 'cs-element-decline-not-told',
    file: 'src/http/pages/browser/processor-element.ts',
    find: "document.dispatchEvent(new Event('opentill:declined'));",
    replace: '{}',
    tests: ['test/browser/checkout-events-stripe.test.ts'],
  },
  {
    id: 'cs-closed-shop-shows-the-form',
    file: 'src/http/pages/checkout/checkout-page.ts',
    find: 'if (isClosed(ctx)) return showClosedShop(ctx, request, reply, scope, offer);',
    replace: '',
    tests: [CHECKOUT, 'test/browser/checkout-closed.test.ts'],
  },
  {
    id: 'cs-closed-shop-silent-in-overlay',
    file: 'src/http/pages/checkout/checkout-closed.ts',
    find: '...embedMessages(embedding),',
    replace: '',
    tests: ['test/browser/checkout-closed.test.ts'],
  },
  // Product API (issue 35)
  {
    id: 'pa-other-vendors-product-readable',
    file: 'src/store/catalog-store.ts',
    find: '        .$call(whereScope(scope))\n        .executeTakeFirst();\n      if (!row) return undefined;\n      const prices',
    replace: '        .executeTakeFirst();\n      if (!row) return undefined;\n      const prices',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-archived-product-purchased',
    file: 'src/domain/checkout/purchase-plan.ts',
    find: '  requireOnSale(offer.product);\n',
    replace: '',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-archived-product-priced-at-checkout',
    file: 'src/domain/checkout/offer-quotes.ts',
    find: '  requireOnSale(offer.product);\n',
    replace: '',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-archived-product-customized',
    file: 'src/domain/catalog/customized-products.ts',
    find: '  if (product.archivedAt !== null)\n',
    replace: '  if (false)\n',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-price-in-cents-whatever-the-currency',
    file: 'src/http/routes/v1/products.ts',
    find: 'value: minorToNumber(minor, currency),',
    replace: 'value: minor / 100,',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-period-changes-after-sales',
    file: 'src/domain/catalog/products.ts',
    find: 'chargeFrequency !== current.chargeFrequency && (await repos.products.hasSales(scope, id))',
    replace: 'false',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-update-blanks-what-it-does-not-name',
    file: 'src/domain/catalog/products.ts',
    find: 'description: input.description === undefined ? current.description : productDescription(input.description),',
    replace: "description: input.description === undefined ? '' : productDescription(input.description),",
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-update-name-unchecked',
    file: 'src/domain/catalog/products.ts',
    find: 'name: input.name === undefined ? current.name : productName(input.name),',
    replace: 'name: input.name === undefined ? current.name : String(input.name),',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-archive-stops-renewals',
    file: 'src/domain/billing/renewal-plan.ts',
    find: '    cache.set(key, offer && seatUnitPrices(offer, t.quantity, !!t.customizedProductId));',
    replace:
      "    cache.set(key, offer && !('archivedAt' in offer && offer.archivedAt) ? seatUnitPrices(offer, t.quantity, !!t.customizedProductId) : undefined);",
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-archive-again-moves-the-date',
    file: 'src/domain/catalog/products.ts',
    find: '    if ((current.archivedAt !== null) === archived) return current;',
    replace: '',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-list-filter-ignored',
    file: 'src/http/routes/v1/products.ts',
    find: "(p.archivedAt !== null) === (wanted === 'true')",
    replace: 'true',
    tests: ['test/api/products-api.test.ts'],
  },
  {
    id: 'pa-docs-sandbox-link-gets-production-first',
    file: 'src/http/api-reference.ts',
    find: 'serversFor(config, sandboxAsked(request))',
    replace: 'serversFor(config, false)',
    tests: ['test/api/api-reference.test.ts'],
  },
  {
    id: 'pa-answers-default-response',
    file: 'src/http/schemas.ts',
    find: '({ ...schema, description }) as T',
    replace: '({ ...schema }) as T',
    tests: ['test/api/api-reference.test.ts'],
  },
  // Webhooks (issue 35)
  {
    id: 'wh-later-event-first',
    file: 'src/store/webhooks-store.ts',
    find: ".whereRef('p.seq', '<', 'e.seq')",
    replace: ".whereRef('p.seq', '>', 'e.seq')",
    tests: ['test/webhooks/webhook-delivery.test.ts', 'test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-given-up-event-blocks-forever',
    file: 'src/store/webhooks-store.ts',
    find: ".where('p.status', '=', 'PENDING')",
    replace: ".where('p.status', '<>', 'DELIVERED')",
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-retry-schedule-one-step-late',
    file: 'src/domain/webhooks/webhook-model.ts',
    find: 'return delays[Math.min(Math.max(tries, 1), delays.length) - 1]!;',
    replace: 'return delays[Math.min(Math.max(tries, 1), delays.length - 1)]!;',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-no-try-at-three-days',
    file: 'src/domain/webhooks/webhook-retry.ts',
    find: 'const next = Math.min(at.getTime() + retryDelayMs(tries, delays), Date.parse(giveUpAt));',
    replace: 'const next = at.getTime() + retryDelayMs(tries, delays);',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-three-days-from-each-try',
    file: 'src/domain/webhooks/webhook-retry.ts',
    find: 'const giveUpAt = event.giveUpAt || new Date(at.getTime() + RETRY_FOR_MS).toISOString();',
    replace: 'const giveUpAt = new Date(at.getTime() + RETRY_FOR_MS).toISOString();',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-redirect-delivers',
    file: 'src/domain/webhooks/webhook-retry.ts',
    find: 'response.status >= 200 && response.status < 300',
    replace: 'response.status >= 200 && response.status < 400',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-signs-the-snapshot-not-the-body',
    file: 'src/domain/webhooks/send-due-webhooks.ts',
    find: 'sign(event.id, sentAt, body)',
    replace: 'sign(event.id, sentAt, event.payload)',
    tests: ['test/webhooks/webhook-delivery.test.ts'],
  },
  {
    id: 'wh-timestamp-header-not-signed-one',
    file: 'src/domain/webhooks/send-due-webhooks.ts',
    find: "'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),",
    replace: "'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000) - 1),",
    tests: ['test/webhooks/webhook-delivery.test.ts'],
  },
  {
    id: 'wh-new-id-each-try',
    file: 'src/domain/webhooks/send-due-webhooks.ts',
    find: "'webhook-id': event.id,",
    replace: "'webhook-id': `${event.id}-${event.tries}`,",
    tests: ['test/webhooks/webhook-delivery.test.ts', 'test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-disabled-after-a-day-and-a-half',
    file: 'src/domain/webhooks/send-due-webhooks.ts',
    find: '>= DISABLE_AFTER_MS',
    replace: '>= DISABLE_AFTER_MS / 2',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-success-keeps-failing-time',
    file: 'src/store/webhooks-store.ts',
    find: '.set({ failing_since: ok ? null :',
    replace: '.set({ failing_since: ok ? sql<string>`failing_since` :',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-dead-worker-settles',
    file: 'src/store/webhooks-store.ts',
    find: "        .where('id', '=', id)\n        .where('lease_owner', '=', owner)\n        .executeTakeFirst();",
    replace: "        .where('id', '=', id)\n        .executeTakeFirst();",
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-time-limit-ignored',
    file: 'src/domain/webhooks/send-due-webhooks.ts',
    find: '    timeoutMs: ctx.timeoutMs,\n',
    replace: '    timeoutMs: 60_000,\n',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-mapped-ipv6-public',
    file: 'src/domain/webhooks/address-guard.ts',
    find: "  if (family === 6 && CARRYING_IPV4.check(bare, 'ipv6')) return false;\n",
    replace: '',
    tests: ['test/webhooks/webhook-ssrf.test.ts'],
  },
  {
    id: 'wh-private-ranges-public',
    file: 'src/domain/webhooks/address-guard.ts',
    find: "  ['172.16.0.0', 12],\n",
    replace: "  ['172.16.0.0', 16],\n",
    tests: ['test/webhooks/webhook-ssrf.test.ts'],
  },
  {
    id: 'wh-production-takes-http',
    file: 'src/domain/webhooks/address-guard.ts',
    find: "if (environment === 'production' && url.protocol !== 'https:')",
    replace: 'if (false)',
    tests: ['test/webhooks/webhook-ssrf.test.ts', 'test/cli/webhook-cli.test.ts'],
  },
  {
    id: 'wh-added-name-not-resolved',
    file: 'src/domain/webhooks/endpoints.ts',
    find: 'if (addresses.length === 0 || hidden !== undefined)',
    replace: 'if (addresses.length === 0)',
    tests: ['test/webhooks/webhook-ssrf.test.ts'],
  },
  {
    id: 'wh-try-not-checked',
    file: 'src/outbound/webhook-transport.ts',
    find: 'if (!request.allowPrivate && hidden !== undefined)',
    replace: 'if (!request.allowPrivate && hidden === address)',
    tests: ['test/webhooks/webhook-ssrf.test.ts'],
  },
  {
    id: 'wh-connect-resolves-again',
    file: 'src/outbound/webhook-transport.ts',
    find: '    lookup,\n    signal: deadline,',
    replace: '    signal: deadline,',
    tests: ['test/webhooks/webhook-ssrf.test.ts'],
  },
  {
    id: 'wh-renewal-not-in-outbox',
    file: 'src/store/webhook-outbox.ts',
    find: '          if (w.change) into.changed.add(w.transactionId);\n',
    replace: '',
    tests: ['test/webhooks/webhook-delivery.test.ts'],
  },
  {
    id: 'wh-payment-entry-not-noted',
    file: 'src/store/webhook-outbox.ts',
    find: '        await repo.insert(entry);\n        into.entries.set(entry.transactionId, entry);',
    replace: '        await repo.insert(entry);',
    tests: ['test/webhooks/webhook-delivery.test.ts'],
  },
  {
    id: 'wh-disabled-endpoint-still-queued',
    file: 'src/store/webhook-outbox.ts',
    find: "      .where('w.enabled', '=', 1)\n",
    replace: '',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-refund-never-partial',
    file: 'src/domain/webhooks/event-body.ts',
    find: "partial: transaction.status !== 'TRANSACTION_STATUS_REFUNDED',",
    replace: 'partial: false,',
    tests: ['test/webhooks/webhook-delivery.test.ts'],
  },
  {
    id: 'wh-one-event-per-run',
    file: 'src/domain/webhooks/send-due-webhooks.ts',
    find: 'if (batch.length < ctx.batchSize && report.delivered + report.failed === freedBefore) return report;',
    replace: 'if (batch.length < ctx.batchSize) return report;',
    tests: ['test/webhooks/webhook-delivery.test.ts'],
  },
  {
    id: 'wh-enable-keeps-failures',
    file: 'src/store/webhooks-store.ts',
    find: '.set({ enabled: 1, failing_since: null, disabled_at: null, disabled_reason: null })',
    replace: '.set({ enabled: 1, disabled_at: null, disabled_reason: null })',
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-enable-any-vendor',
    file: 'src/store/webhooks-store.ts',
    find: "        .where('removed_at', 'is', null)\n        .$call(whereScope(scope))\n        .executeTakeFirst();\n      return Number(result.numUpdatedRows) === 1;\n    },\n    async disableEndpoint",
    replace:
      "        .where('removed_at', 'is', null)\n        .executeTakeFirst();\n      return Number(result.numUpdatedRows) === 1;\n    },\n    async disableEndpoint",
    tests: ['test/webhooks/webhook-retries.test.ts'],
  },
  {
    id: 'wh-sandbox-adds-metadata-address',
    file: 'src/domain/webhooks/address-guard.ts',
    find: 'if (!allowLinkLocal && isIP(host) !== 0 && isLinkLocal(host))',
    replace: 'if (false)',
    tests: ['test/webhooks/webhook-ssrf.test.ts'],
  },
  {
    id: 'wh-sandbox-try-reaches-metadata',
    file: 'src/outbound/webhook-transport.ts',
    find: 'if (!request.allowLinkLocal && linkLocal !== undefined)',
    replace: 'if (!request.allowLinkLocal && linkLocal === addresses[1])',
    tests: ['test/webhooks/webhook-ssrf.test.ts'],
  },
  // The webhook log's purge (issue 35).
  {
    id: 'webhook-purge-takes-waiting',
    file: `${S}webhooks-store.ts`,
    find: ".where('status', 'in', ['DELIVERED', 'FAILED'])",
    replace: '',
    tests: ['test/webhooks/webhook-log-purge.test.ts'],
  },
  {
    id: 'webhook-purge-keeps-days-wrong',
    file: `${D}webhooks/webhooks.ts`,
    find: 'export const KEEP_LOG_MS = 30 * 24 * 60 * 60 * 1000;',
    replace: 'export const KEEP_LOG_MS = 31 * 24 * 60 * 60 * 1000;',
    tests: ['test/webhooks/webhook-log-purge.test.ts'],
  },
  ...[checkoutLanguageMutants, portalMutants, documentLanguageMutants, panelDetailMutants, paymentMethodMutants].flat(),
  ...pauseMutants,
  ...productFormMutants,
  ...couponMutants,
  ...licenceMutants,
  ...seatMutants,
  ...authenticationMutants,
];
