import type { ProcessorBooks } from './processor-activity.ts';

/**
 * The payment network, seen from the domain (the shape of Medusa's payment provider): a payment the
 * customer completes in the browser, a card saved for later, an off-session charge under a key, a
 * refund under a key, a lookup by key, and the processor's own events in opentill's terms.
 * Implementations: the sandbox gateway (virtual money, published test cards, opentill's own card
 * form) and the Stripe adapter (the processor's card element; no card data reaches opentill). The
 * rest of the code never looks past this interface.
 */
export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  /** Checked by the provider when present; never stored or logged. */
  cvc?: string | undefined;
}

export type DeclineCode =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'invalid_card'
  | 'test_card_refused'
  | 'provider_unavailable'
  | 'refund_refused'
  /** The card's bank asks the customer to authenticate (3-D Secure): not a refusal, the customer can still pay. */
  | 'authentication_required';

export interface Decline {
  status: 'DECLINED';
  code: DeclineCode;
  message: string;
  /** The method can never succeed again (expired, closed): a vaulted method is deactivated. */
  permanent: boolean;
  /** The processor's id of the payment, when it still exists there (one awaiting the customer's authentication). */
  reference?: string | undefined;
}

const DECLINE_MESSAGES: Record<DeclineCode, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
  invalid_card: 'The card number is not valid.',
  test_card_refused: 'Test card numbers work only in the sandbox.',
  provider_unavailable: 'The payment provider is not available.',
  refund_refused: 'The payment provider refused the refund.',
  authentication_required: "The card's bank asks the customer to confirm this payment.",
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
  /** The processor's method type when not a plain card ("sepa_debit", "paypal"), and a card's wallet (§37). */
  type?: string | undefined;
  wallet?: string | null | undefined;
}

export type TokenizeResult = { status: 'OK'; card: TokenizedCard } | Decline;

export type ChargeResult =
  /** `method`: the card the customer used, when the payment was made in the browser (what a later charge uses). */
  | { status: 'SUCCEEDED'; reference: string; feeMinor: number; method?: TokenizedCard | undefined }
  | Decline
  /** Timeout or lost answer: recorded as unknown and resolved later, never blindly retried. */
  | { status: 'UNKNOWN' };

export interface ChargeRequest {
  /** Deterministic attempt identity: the provider treats a repeat as the same charge. */
  attemptId: string;
  token: string;
  amountMinor: number;
  currency: string;
  /**
   * When the attempt was recorded: a charge asked again long after (a worker that was down) is first
   * looked up, since a processor forgets idempotency keys after a while (Stripe: 24 hours).
   */
  recordedAt?: string | undefined;
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

/**
 * How the hosted pages take a card. `form`: opentill's own card fields, posted to opentill (the
 * sandbox's virtual cards). `browser`: the processor's script and element; the card goes from the
 * customer's browser to the processor and opentill only ever sees a reference. `none`: no processor.
 */
export type CardEntry =
  | { kind: 'form' }
  | { kind: 'browser'; library: string; scriptUrl: string; publicKey: string; origins: readonly string[] }
  | { kind: 'none'; message: string };

/** A payment (or, with nothing to pay, a card saved for later) the customer completes in the browser, under the attempt's id. */
export interface SessionRequest {
  attemptId: string;
  /** 0: nothing is charged now; the card is saved for later charges (a trial, a free start, a vaulted method). */
  amountMinor: number;
  currency: string;
  /** Keep the card for off-session charges (subscriptions, vaulted methods). */
  saveForLater: boolean;
  scope: { vendorId: string; environment: string };
  customer: { email: string; name: string | null; reference: string | null };
  /** The token of the stored card the new one replaces (a card change): the processor keeps the new card with the same customer. */
  replacesCard?: string | undefined;
  description: string;
}

export type SessionStart =
  { status: 'OPEN'; reference: string; clientSecret: string; mode: 'payment' | 'setup' } | Decline;

/** An inbound processor event whose signature checked out, as received (stored before it is acted on). */
export interface InboundEvent {
  id: string;
  type: string;
  createdAt: string;
  payload: string;
}

export type EventCheck = { status: 'OK'; event: InboundEvent } | { status: 'INVALID'; message: string };

/**
 * A processor's event in opentill's terms. References are the processor's ids of payments (what
 * ledger entries keep as their external id); `attemptId` is the opentill attempt the processor's
 * object names in its metadata. An event for nothing opentill made is `ignored`.
 */
export type ProcessorEvent =
  /** Something happened to the payment or card setup of an attempt: ask the processor where it stands and settle. */
  | { kind: 'payment'; attemptId: string; reference: string }
  | {
      kind: 'refunds';
      paymentReference: string;
      attemptId: string;
      /** Every refund of the payment as the processor has it now; `failed`: it did not reach the customer (the money stays the vendor's). */
      refunds: {
        reference: string;
        amountMinor: number;
        currency: string;
        refundAttemptId: string | null;
        failed: boolean;
      }[];
    }
  | {
      kind: 'dispute';
      paymentReference: string;
      attemptId: string;
      disputeReference: string;
      amountMinor: number;
      currency: string;
      outcome: 'open' | 'won' | 'lost';
      /** Decided by the provider of a method other than a card (PayPal, a bank's debit): a stopped subscription says WALLET_PROVIDER (§37). */
      byProvider?: boolean | undefined;
    }
  /** The customer revoked a stored method's mandate at their bank or wallet: it can never be charged again (§37). */
  | { kind: 'method-revoked'; token: string }
  | { kind: 'ignored'; reason: string };

export interface PaymentGateway {
  readonly provider: string;
  readonly cardEntry: CardEntry;
  /** Card fields posted to opentill (`form` card entry only). */
  tokenize(card: CardInput, now: Date): Promise<TokenizeResult>;
  /** Starts a browser payment or card setup under `attemptId` (`browser` card entry); the same id again is the same session. */
  startSession(request: SessionRequest): Promise<SessionStart>;
  /** Charges a saved card, the customer absent, under `attemptId`: a repeat is the same charge. */
  charge(request: ChargeRequest): Promise<ChargeResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * The outcome of the charge (or browser session, whose id is `reference`) made under `attemptId`;
   * UNKNOWN while it is in flight or the customer is still at it; NOT_FOUND, and the id voided, when
   * no money moved and none can move any more under it.
   */
  lookupCharge(attemptId: string, reference?: string | null): Promise<ChargeResult | NotFound>;
  /** The outcome of the refund made under `refundId` of the payment `chargeReference`, or NOT_FOUND (and the id voided). */
  lookupRefund(refundId: string, chargeReference?: string | null): Promise<RefundResult | NotFound>;
  /** What the browser needs to let the customer authenticate a payment awaiting it (a renewal the bank held), or undefined if none can. */
  authenticationSession(reference: string): Promise<{ clientSecret: string; method: string | null } | undefined>;
  /**
   * Cancels a payment awaiting authentication so it can no longer move money; SUCCEEDED if the
   * customer completed it first (then it is that payment), NOT_FOUND if it is cancelled.
   */
  cancelPending(reference: string): Promise<ChargeResult | NotFound>;
  /** Checks an inbound event's signature over the raw body; processors that send no events lack it. */
  verifyEvent?(rawBody: Buffer, signature: string | undefined): EventCheck;
  /** Puts a stored event in opentill's terms (asking the processor what it needs to). */
  translateEvent?(event: InboundEvent): Promise<ProcessorEvent>;
  /** The processor's records of its balance, for reconciliation with the ledger; processors that keep no balance (virtual cards, none) lack it. */
  readonly books?: ProcessorBooks;
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
