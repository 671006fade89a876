import type { PaymentGateway } from '../domain/payments/index.ts';
import { SANDBOX_TEST_CARDS } from '../domain/payments/index.ts';

/**
 * Production until an operator configures a payment provider: it moves no money and says why.
 * Test card numbers get their own message, since production must refuse them.
 */
const NOT_CONFIGURED =
  'No payment processor is configured for production: the operator sets STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET.';

export const unconfiguredGateway: PaymentGateway = {
  provider: 'NONE',
  cardEntry: { kind: 'none', message: NOT_CONFIGURED },
  async startSession() {
    return { status: 'DECLINED', code: 'provider_unavailable', message: NOT_CONFIGURED, permanent: false };
  },
  authenticationSession: async () => undefined,
  cancelPending: async () => ({ status: 'NOT_FOUND' }),
  async tokenize(card) {
    const digits = card.number.replace(/[\s-]/g, '');
    if (SANDBOX_TEST_CARDS[digits]) {
      return {
        status: 'DECLINED',
        code: 'test_card_refused',
        message: 'Test card numbers work only in the sandbox.',
        permanent: true,
      };
    }
    return {
      status: 'DECLINED',
      code: 'provider_unavailable',
      message: 'No payment provider is configured for production.',
      permanent: false,
    };
  },
  async charge() {
    return {
      status: 'DECLINED',
      code: 'provider_unavailable',
      message: 'No payment provider is configured for production.',
      permanent: false,
    };
  },
  async refund() {
    return { status: 'FAILED', message: 'No payment provider is configured for production.' };
  },
  // It never charged or refunded anything.
  lookupCharge: async () => ({ status: 'NOT_FOUND' }),
  lookupRefund: async () => ({ status: 'NOT_FOUND' }),
};
