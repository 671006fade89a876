import type { PaymentGateway } from '../domain/gateway.ts';
import { SANDBOX_TEST_CARDS } from './sandbox-cards.ts';

/**
 * Production until an operator configures a payment provider: it moves no money and says why.
 * Test card numbers get their own message, since production must refuse them.
 */
export const unconfiguredGateway: PaymentGateway = {
  provider: 'NONE',
  async tokenize(card) {
    const digits = card.number.replace(/[\s-]/g, '');
    if (SANDBOX_TEST_CARDS[digits]) {
      return { status: 'DECLINED', code: 'test_card_refused', message: 'Test card numbers work only in the sandbox.', permanent: true };
    }
    return { status: 'DECLINED', code: 'provider_unavailable', message: 'No payment provider is configured for production.', permanent: false };
  },
  async charge() {
    return { status: 'DECLINED', code: 'provider_unavailable', message: 'No payment provider is configured for production.', permanent: false };
  },
  async refund() {
    return { status: 'FAILED', message: 'No payment provider is configured for production.' };
  },
  // It never charged or refunded anything.
  lookupCharge: async () => ({ status: 'NOT_FOUND' }),
  lookupRefund: async () => ({ status: 'NOT_FOUND' }),
};
