import type { TokenizedCard } from './gateway.ts';
import type { NewEntry } from './ledger.ts';
import type { Transaction } from '../model.ts';
import type { PriceQuote } from '../tax/index.ts';

/**
 * What each kind of charge attempt books when it succeeds, recorded with the attempt before the
 * gateway is asked (docs/architecture.md §4): the store keeps it as JSON and gives it back parsed, typed
 * by the attempt's kind (`ChargeAttempt` in ports.ts), so nothing reads a plan as some other kind's.
 */

/** A purchase on the hosted checkout (or the CLI's, the demo's): the whole booking, decided before the charge. */
export interface PurchasePlan {
  transaction: Transaction;
  quote: PriceQuote;
  /** The processor's token of the card: what a retry of the charge is asked with ('' until a browser session saved one). */
  token: string;
  provider: string;
  /** The card, when it was known before the charge (typed into opentill's form); a browser session's comes with its outcome. */
  card: TokenizedCard | null;
  /** Paid in the browser, in a session of the processor's under this attempt: asked about, never charged from here. */
  session?: boolean;
  customer: { id: string; firstName: string | null; lastName: string | null };
  licence: string | null;
  licenceId: string;
  charged: boolean;
  /**
   * The subscription this one replaces (docs/decisions.md §14, §34): ended at once, or, for a portal
   * downgrade (`atPeriodEnd`), left to run out its paid period; `who` ended it (VENDOR for a link).
   */
  migration: {
    oldId: string;
    oldNextCharge: string | null;
    atPeriodEnd?: boolean | undefined;
    who?: 'VENDOR' | 'CUSTOMER' | undefined;
    /** The same product goes on (a seat change): its licence key carries over (docs/decisions.md §39). */
    keepsLicence?: boolean | undefined;
  } | null;
}

/** A vendor's charge of a stored card (charge-vaulted). */
export interface VaultedPlan {
  transactionId: string;
  token: string;
  quote: PriceQuote;
  description: string | null;
}

/** A refund asked through opentill (all or part of a payment): of which payment, and the entry it books. */
export interface RefundPlan {
  transaction: Transaction;
  /** The payment (ledger entry) refunded. */
  paymentId: string;
  /** The processor's id of that payment. */
  chargeReference: string | null;
  /** The refund entry's ids and time, chosen when it was asked, so its answer names what is booked. */
  entry: { id: string; hashId: string; createdAt: string };
  /** Why, as the vendor wrote it. */
  reason: string | null;
}

/** A renewal's charge: what billing books from it (the rest it reads from the row itself). */
export interface RenewalPlan {
  quote: Pick<PriceQuote, 'currency' | 'netMinor' | 'taxMinor' | 'taxRate'>;
  period: number;
  periodStart: string;
}

/**
 * A plan as an earlier version recorded it, in this version's shape: a refund recorded before refunds
 * could be partial kept its whole entry (`refund`); the entry names its payment and ids.
 */
export function currentPlan(kind: keyof AttemptPlans, plan: unknown): unknown {
  if (kind !== 'REFUND' || plan === null || typeof plan !== 'object' || !('refund' in plan)) return plan;
  const { transaction, refund, chargeReference } = plan as {
    transaction: Transaction;
    refund: NewEntry;
    chargeReference: string | null;
  };
  return {
    transaction,
    paymentId: refund.reversesEntryId ?? '',
    chargeReference,
    entry: { id: refund.id, hashId: refund.hashId, createdAt: refund.createdAt },
    reason: null,
  } satisfies RefundPlan;
}

/** Each kind's plan; a renewal recorded by an older version may have none. */
export interface AttemptPlans {
  PURCHASE: PurchasePlan;
  VAULTED: VaultedPlan;
  REFUND: RefundPlan;
  RENEWAL: RenewalPlan | null;
}
