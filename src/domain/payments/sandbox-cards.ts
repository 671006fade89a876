/**
 * The sandbox's published test cards. Any expiry in the future and any CVC work with them.
 * These are the only numbers the sandbox accepts, and the numbers production refuses.
 */
export type SandboxBehaviour = 'success' | 'card_declined' | 'insufficient_funds' | 'expired_card' | 'later_declined';

export const SANDBOX_TEST_CARDS: Readonly<Record<string, { behaviour: SandboxBehaviour; description: string }>> = {
  '4242424242424242': { behaviour: 'success', description: 'Visa: every charge succeeds' },
  '5555555555554444': { behaviour: 'success', description: 'Mastercard: every charge succeeds' },
  '4000000000000002': { behaviour: 'card_declined', description: 'Visa: every charge is declined' },
  '4000000000009995': { behaviour: 'insufficient_funds', description: 'Visa: declined for insufficient funds' },
  '4000000000000069': { behaviour: 'expired_card', description: 'Visa: declined as expired (permanent)' },
  '4000000000000341': {
    behaviour: 'later_declined',
    description: 'Visa: the first charge succeeds, every later one (renewals) is declined',
  },
};
