import type { Environment } from '../model.ts';
import type { ProcessorItem, ProcessorItemKind, ProcessorPayout } from '../payments/index.ts';
import type { ReferencedEntry } from '../ports.ts';

/** What a reconciliation of the ledger with the processor finds (docs/decisions.md §25). Amounts are exact integers in minor units. */

/** The days reconciled: `from` and `to` as given (UTC, both included), and the instants they span ([startsAt, endsAt)). */
export interface ReconciliationPeriod {
  from: string;
  to: string;
  startsAt: string;
  endsAt: string;
}

/** An item of the processor's balance as the report shows it. */
export type ProcessorLine = Pick<
  ProcessorItem,
  'id' | 'kind' | 'reference' | 'label' | 'createdAt' | 'currency' | 'amountMinor' | 'feeMinor'
>;

/** A ledger entry as the report shows it. */
export type LedgerLine = ReferencedEntry;

/** An item the ledger has, with an amount (or a payment's processor fee) that is not the processor's. */
export interface AmountDifference {
  reference: string;
  kind: ProcessorItemKind;
  /** The amount moved, or the processor's fee of a payment. */
  field: 'amount' | 'fee';
  processorId: string;
  entryId: string;
  processor: { amountMinor: number; currency: string };
  ledger: { amountMinor: number; currency: string };
}

/** A payout of the period, with what its movements sum to: they differ only if the processor's own books do. */
export interface PayoutLine extends ProcessorPayout {
  /** The payout less the nets of what it paid out; null when the processor does not say what that was. */
  differenceMinor: number | null;
}

/** Fees the processor took that the ledger keeps no entry of by design: the dispute fee (§21), per balance currency. */
export interface UnbookedFees {
  currency: string;
  feeMinor: number;
  items: number;
}

export interface ReconciliationReport {
  /** The processor reconciled with, as the ledger names it (`STRIPE`). */
  provider: string;
  environment: Environment;
  period: ReconciliationPeriod;
  /** The processor's items of the period found in the ledger with the same amounts. */
  matched: number;
  /** In the processor's books (made in the period), not in the ledger. */
  missingInLedger: ProcessorLine[];
  /** In the ledger (booked in the period), not in the processor's books. */
  missingAtProcessor: LedgerLine[];
  amountsDiffer: AmountDifference[];
  /** The payouts made in the period. */
  payouts: PayoutLine[];
  unbookedFees: UnbookedFees[];
  /** The processor's items of kinds the ledger keeps no entry of (its own billing fees, transfers, top-ups), shown, not counted. */
  otherItems: ProcessorLine[];
  /** Every difference found: the three lists and the payouts whose movements do not sum to them. 0: the books agree. */
  differences: number;
}
