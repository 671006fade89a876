/**
 * What moved through the processor's balance in a period, in the ledger's terms: each item named by the
 * id the ledger keeps for it, its amount in the payment's currency (as the ledger books it) and the
 * processor's fee converted the way the ledger's fee was; and the payouts made of that balance. The
 * books compare it with the ledger (src/domain/books/reconciliation.ts, docs/decisions.md §25).
 */

/**
 * What an item is for the ledger: a payment, a refund, a dispute (a chargeback), their undoing (a refund
 * that failed, a dispute won), a payout of the balance, or something the ledger keeps no entry of (the
 * processor's own billing fees, a transfer, a top-up).
 */
export type ProcessorItemKind =
  'payment' | 'refund' | 'refund_failed' | 'chargeback' | 'chargeback_won' | 'payout' | 'other';

export interface ProcessorItem {
  /** The processor's id of the balance movement (Stripe's balance transaction). */
  id: string;
  kind: ProcessorItemKind;
  /**
   * The id the ledger keeps for it: the payment's, the refund's, the dispute's, with `:failed` and `:won`
   * for their undoing (as src/domain/processor books them); for a payout or other item, its source's id.
   */
  reference: string;
  /** The processor's own name for it (Stripe's type and reporting category). */
  label: string;
  /** When the processor made it: the time a period is cut by. */
  createdAt: string;
  /** In the payment's currency (upper case), signed as the balance moved: a payment positive, a refund negative. */
  amountMinor: number;
  currency: string;
  /** The processor's fee, in the payment's currency: converted from the balance's as a payment's fee was booked. */
  feeMinor: number;
  /** The same movement as the processor's balance holds it (its currency may be another). */
  balance: { currency: string; amountMinor: number; feeMinor: number; netMinor: number };
  /** A refund that failed since: if it failed before it was booked, the ledger has neither it nor its failure (§6a). */
  undone?: boolean | undefined;
}

export interface ProcessorPayout {
  /** The processor's id of the payout. */
  id: string;
  createdAt: string;
  /** The day it reaches the bank (YYYY-MM-DD, UTC). */
  arrivalDate: string;
  status: string;
  /** In the balance's currency (upper case). */
  currency: string;
  amountMinor: number;
  /**
   * The nets of the balance movements it paid out, summed, and how many there were (its own movement not
   * counted); null when the processor does not say (Stripe: a manual payout, or one it has not reconciled yet).
   */
  paidOut: { netMinor: number; count: number } | null;
}

/** A period of the processor's time: from `from` (inclusive) to `to` (exclusive). */
export interface ActivityPeriod {
  from: Date;
  to: Date;
}

/** The processor's records of its balance, read for a reconciliation: each call pages through all there is. */
export interface ProcessorBooks {
  /** Every movement of the balance the processor made in the period, newest first. */
  items(period: ActivityPeriod): Promise<ProcessorItem[]>;
  /** Every payout made in the period, newest first, with what each paid out. */
  payouts(period: ActivityPeriod): Promise<ProcessorPayout[]>;
}
