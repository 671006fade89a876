import type { Mutant } from './mutant.ts';

/** Mutants of payment methods beyond cards (issue 36, docs/decisions.md §37). */
export const paymentMethodMutants: Mutant[] = [
  {
    id: 'pm-kept-method-not-reusable-only',
    file: 'src/gateways/stripe-gateway.ts',
    find: "...(request.saveForLater ? { setup_future_usage: 'off_session' as const } : {}),",
    replace: '',
    tests: ['test/stripe/payment-methods.test.ts'],
  },
  {
    id: 'pm-off-session-any-card',
    file: 'src/gateways/stripe-gateway.ts',
    find: 'allowed_payment_method_types: [token.type as Stripe.PaymentIntentCreateParams.AllowedPaymentMethodType],',
    replace: "allowed_payment_method_types: ['card'],",
    tests: ['test/stripe/payment-methods.test.ts'],
  },
  {
    id: 'pm-wallet-forgotten',
    file: 'src/gateways/stripe-outcomes.ts',
    find: 'wallet: method.card.wallet?.type ?? null,',
    replace: 'wallet: null,',
    tests: ['test/stripe/payment-methods.test.ts'],
  },
  {
    id: 'pm-dispute-apple-pay-is-wallet',
    file: 'src/gateways/stripe-events.ts',
    find: "return typeof method === 'object' && method !== null && method.type !== 'card';",
    replace:
      "return typeof method === 'object' && method !== null && (method.type !== 'card' || !!method.card?.wallet);",
    tests: ['test/stripe/payment-methods.test.ts'],
  },
  {
    id: 'pm-revoked-by-the-customer',
    file: 'src/domain/processor/revoked-method.ts',
    find: "await deps.cancel(scope, transactionId, 'WALLET_PROVIDER');",
    replace: "await deps.cancel(scope, transactionId, 'CUSTOMER');",
    tests: ['test/stripe/payment-methods.test.ts'],
  },
  {
    id: 'pm-revoked-ends-every-transaction',
    file: 'src/store/accounts-store.ts',
    find: "        .where('payment_methods.token', '=', token)\n",
    replace: '',
    tests: ['test/stripe/payment-methods.test.ts'],
  },
  {
    id: 'pm-sepa-without-digits-check',
    file: 'src/i18n/payment-method.ts',
    find: "if (method.last4 && type === 'sepa_debit')",
    replace: "if (type === 'sepa_debit')",
    tests: ['test/unit/payment-method-label.test.ts'],
  },
  {
    id: 'pm-standin-kept-offers-all',
    file: 'test/helpers/stripe-standin/methods.ts',
    find: '.filter(([, m]) => fits(m) && (!kept || m.reusable) && (redirects || !m.redirects))',
    replace: '.filter(([, m]) => fits(m) && (redirects || !m.redirects))',
    tests: ['test/stripe-standin/methods.test.ts', 'test/stripe/payment-methods.test.ts'],
  },
];
