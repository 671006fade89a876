/**
 * The payment network, seen from the domain. Implementations: the sandbox gateway (virtual money,
 * published test cards) and, for production, whatever provider an operator plugs in. The rest of
 * the code never looks past this interface.
 */
export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  /** Checked by the provider when present; never stored or logged. */
  cvc?: string | undefined;
}

export type DeclineCode =
  'card_declined' | 'insufficient_funds' | 'expired_card' | 'invalid_card' | 'test_card_refused' | 'provider_unavailable' | 'refund_refused';

export interface Decline {
  status: 'DECLINED';
  code: DeclineCode;
  message: string;
  /** The method can never succeed again (expired, closed): a vaulted method is deactivated. */
  permanent: boolean;
}

const DECLINE_MESSAGES: Record<DeclineCode, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
  invalid_card: 'The card number is not valid.',
  test_card_refused: 'Test card numbers work only in the sandbox.',
  provider_unavailable: 'The payment provider is not available.',
  refund_refused: 'The payment provider refused the refund.',
};

/** The customer's words for a decline recorded earlier, when the provider's own message is gone. */
export const declineMessage = (code: DeclineCode): string => DECLINE_MESSAGES[code] ?? DECLINE_MESSAGES.card_declined;

/** What the platform keeps of a card: a token, brand, last 4 digits and expiry. Nothing else. */
export interface TokenizedCard {
  token: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type TokenizeResult = { status: 'OK'; card: TokenizedCard } | Decline;

export type ChargeResult =
  | { status: 'SUCCEEDED'; reference: string; feeMinor: number }
  | Decline
  /** Timeout or lost answer: recorded as unknown and resolved later, never blindly retried. */
  | { status: 'UNKNOWN' };

export interface ChargeRequest {
  /** Deterministic attempt identity: the provider treats a repeat as the same charge. */
  attemptId: string;
  token: string;
  amountMinor: number;
  currency: string;
}

export interface RefundRequest {
  /** Deterministic refund identity: the provider treats a repeat as the same refund. */
  refundId: string;
  chargeReference: string | null;
  amountMinor: number;
  currency: string;
}

export type RefundResult =
  | { status: 'SUCCEEDED'; reference: string }
  | { status: 'FAILED'; message: string }
  /** Timeout or lost answer, as for charges. */
  | { status: 'UNKNOWN' };

/** What the provider knows of an attempt; a key it never saw is voided, so a late request cannot still move money. */
export type NotFound = { status: 'NOT_FOUND' };

export interface PaymentGateway {
  readonly provider: string;
  tokenize(card: CardInput, now: Date): Promise<TokenizeResult>;
  charge(request: ChargeRequest): Promise<ChargeResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /** The outcome of the charge made under `attemptId`, or NOT_FOUND (and the id voided). */
  lookupCharge(attemptId: string): Promise<ChargeResult | NotFound>;
  /** The outcome of the refund made under `refundId`, or NOT_FOUND (and the id voided). */
  lookupRefund(refundId: string): Promise<RefundResult | NotFound>;
}

/** Luhn checksum over the digits of a card number. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardBrand(digits: string): string {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^6(011|5)/.test(digits)) return 'discover';
  return 'card';
}

export function isExpired(expMonth: number, expYear: number, now: Date): boolean {
  const year = expYear < 100 ? 2000 + expYear : expYear;
  return year < now.getUTCFullYear() || (year === now.getUTCFullYear() && expMonth < now.getUTCMonth() + 1);
}
