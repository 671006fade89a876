import type { Environment } from '../model.ts';

/**
 * A payout statement (docs/decisions.md §22): what the platform owes a vendor in one currency for the
 * ledger entries it covers, numbered per vendor and environment, immutable once made (only its payment
 * is recorded later). Amounts are in minor units of `currency`, with their ledger signs (refunds
 * negative).
 */
export interface PayoutStatement {
  id: string;
  vendorId: string;
  environment: Environment;
  currency: string;
  /** 1, 2, 3...: per vendor and environment, across currencies. */
  number: number;
  /** The statement's place in its currency's chain: the first is 1. */
  seq: number;
  /** Entries booked before this moment are covered (refunds and chargebacks at once). */
  until: string;
  /** Payments booked from this moment on were still held back (PAYOUT_HOLD_DAYS before it was made). */
  heldFrom: string;
  createdAt: string;
  entryCount: number;
  totals: StatementTotals;
  /** What the statement before left owing (a negative balance carried forward), 0 for the first. */
  carriedInMinor: number;
  /** What to pay the vendor: income plus what was carried in, never below zero. */
  payableMinor: number;
  /** What is carried to the next statement: the part of a negative total not paid, else 0. */
  carriedOutMinor: number;
  paid: { at: string; reference: string } | null;
}

/** The sums of a statement's entries, by kind. */
export interface StatementTotals {
  /** The payments, tax included. */
  grossMinor: number;
  taxMinor: number;
  /** Refunds (negative), tax included. */
  refundsMinor: number;
  /** Chargebacks (negative) and disputes won (positive), tax included. */
  chargebacksMinor: number;
  processorFeesMinor: number;
  platformFeesMinor: number;
  /** The vendor's income of the entries: gross, refunds and chargebacks, less tax and both fees. */
  incomeMinor: number;
  /** What partial reversals' own rounding leaves between the income and the lines above (a few minor units at most). */
  roundingMinor: number;
}

/** Which of a vendor's entries a statement may cover. */
export interface CoverFilter {
  vendorId: string;
  environment: Environment;
  currency: string;
  /** Entries booked before this. */
  until: string;
  /** Payments (entries that add to the balance) only if booked before this too. */
  heldFrom: string;
}

/** A vendor's balance in one currency: what is owed and not on a statement yet. */
export interface VendorBalance {
  currency: string;
  /** Income of entries no statement covers yet, plus what the last statement carried out. */
  balanceMinor: number;
  /** The part of it a statement made now would still hold back (payments within the hold period). */
  heldMinor: number;
  /** What the last statement carried to the next (0 or negative). */
  carriedMinor: number;
}
