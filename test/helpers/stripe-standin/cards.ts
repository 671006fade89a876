import { passesLuhn } from '../../../src/domain/payments/gateway.ts';
import { cardError, missingParam } from './errors.ts';

/**
 * Stripe's documented test cards (https://docs.stripe.com/testing) and what the bank does with each.
 * A card number is read once, to derive brand, last4 and behaviour; it is never kept.
 */
export type CardBehaviour =
  | 'success'
  | 'decline_generic'
  | 'decline_insufficient_funds'
  | 'decline_expired_card'
  /** Attaching works; every charge is declined (4000000000000341). */
  | 'charge_fails'
  /** 3-D Secure on one-time payments and on setup; once set up with authentication, later payments need none (4000002500003155). */
  | 'authenticate_unless_setup'
  /** 3-D Secure on every payment, off-session too (4000002760003184). */
  | 'authenticate_always'
  /** Succeeds, then the cardholder disputes it as fraudulent (4000000000000259). */
  | 'dispute';

const BY_NUMBER: Record<string, CardBehaviour> = {
  '4242424242424242': 'success',
  '5555555555554444': 'success',
  '4000000000000002': 'decline_generic',
  '4000000000009995': 'decline_insufficient_funds',
  '4000000000000069': 'decline_expired_card',
  '4000000000000341': 'charge_fails',
  '4000002500003155': 'authenticate_unless_setup',
  '4000002760003184': 'authenticate_always',
  '4000000000000259': 'dispute',
};

/** Test PaymentMethod ids Stripe accepts wherever a `payment_method` goes; each stands for a card above. */
export const TEST_PAYMENT_METHODS: Record<string, string> = {
  pm_card_visa: '4242424242424242',
  pm_card_mastercard: '5555555555554444',
  pm_card_visa_chargeDeclined: '4000000000000002',
  pm_card_visa_chargeDeclinedInsufficientFunds: '4000000000009995',
  pm_card_visa_chargeDeclinedExpiredCard: '4000000000000069',
  pm_card_chargeCustomerFail: '4000000000000341',
  pm_card_authenticationRequiredOnSetup: '4000002500003155',
  pm_card_authenticationRequired: '4000002760003184',
  pm_card_createDispute: '4000000000000259',
};

export interface Decline {
  code: 'card_declined' | 'expired_card';
  decline_code: string;
  message: string;
}

export const DECLINES: Partial<Record<CardBehaviour, Decline>> = {
  decline_generic: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  decline_insufficient_funds: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  decline_expired_card: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' },
  charge_fails: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
};

export function brandOf(digits: string): string {
  const n2 = Number(digits.slice(0, 2));
  const n4 = Number(digits.slice(0, 4));
  if (digits.startsWith('4')) return 'visa';
  if ((n2 >= 51 && n2 <= 55) || (n4 >= 2221 && n4 <= 2720)) return 'mastercard';
  if (n2 === 34 || n2 === 37) return 'amex';
  if (digits.startsWith('6011') || digits.startsWith('65') || (n4 >= 6440 && n4 <= 6499)) return 'discover';
  if (n2 === 35) return 'jcb';
  if (n2 === 36 || n2 === 38 || (n4 >= 3000 && n4 <= 3059)) return 'diners';
  if (n2 === 62) return 'unionpay';
  return 'unknown';
}

export interface CheckedCard {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  behaviour: CardBehaviour;
  cvcProvided: boolean;
}

/**
 * What Stripe checks when a card PaymentMethod is created: the number's checksum, the expiry, the CVC's
 * shape. Returns only what may be kept (brand, last4, expiry, behaviour).
 */
export function checkCard(
  card: { number?: unknown; exp_month?: unknown; exp_year?: unknown; cvc?: unknown },
  now: Date,
): CheckedCard {
  if (typeof card.number !== 'string') throw missingParam('card[number]');
  if (card.exp_month === undefined) throw missingParam('card[exp_month]');
  if (card.exp_year === undefined) throw missingParam('card[exp_year]');
  const digits = card.number.replace(/[\s-]/g, '');
  // The Luhn check is the arithmetic opentill's sandbox uses too.
  if (!passesLuhn(digits))
    throw cardError('Your card number is incorrect.', { code: 'incorrect_number', param: 'card[number]' });
  const month = Number(card.exp_month);
  if (!Number.isInteger(month) || month < 1 || month > 12)
    throw cardError("Your card's expiration month is invalid.", {
      code: 'invalid_expiry_month',
      param: 'card[exp_month]',
    });
  let year = Number(card.exp_year);
  if (!Number.isInteger(year))
    throw cardError("Your card's expiration year is invalid.", {
      code: 'invalid_expiry_year',
      param: 'card[exp_year]',
    });
  if (year < 100) year += 2000;
  const thisYear = now.getUTCFullYear();
  if (year < thisYear || year > thisYear + 50)
    throw cardError("Your card's expiration year is invalid.", {
      code: 'invalid_expiry_year',
      param: 'card[exp_year]',
    });
  if (year === thisYear && month < now.getUTCMonth() + 1)
    throw cardError("Your card's expiration month is invalid.", {
      code: 'invalid_expiry_month',
      param: 'card[exp_month]',
    });
  if (card.cvc !== undefined && (typeof card.cvc !== 'string' || !/^\d{3,4}$/.test(card.cvc)))
    throw cardError("Your card's security code is invalid.", { code: 'invalid_cvc', param: 'card[cvc]' });
  return {
    brand: brandOf(digits),
    last4: digits.slice(-4),
    exp_month: month,
    exp_year: year,
    behaviour: BY_NUMBER[digits] ?? 'success',
    cvcProvided: card.cvc !== undefined,
  };
}
