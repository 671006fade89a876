import type { EntryType, Environment } from '../model.ts';
import type { CoverFilter, PayoutStatement, StatementTotals, VendorBalance } from '../books/payout-model.ts';
import type { TaxGroup } from '../books/tax-report.ts';

// Payout statements and the vendor balances they are made from (src/domain/books).

/** The sums of the entries a statement covers, as the store adds them up. */
export type CoveredSums = Omit<StatementTotals, 'roundingMinor'> & { count: number };

export interface PayoutRepository {
  /** The vendor's latest statement in the currency, if any (the chain's last). */
  last(vendorId: string, environment: Environment, currency: string): Promise<PayoutStatement | undefined>;
  /** The currencies of the vendor's entries (its income's), whether covered or not: where a statement may have something to cover. */
  currencies(vendorId: string, environment: Environment): Promise<string[]>;
  /** The highest statement number of the vendor and environment, 0 before the first. */
  lastNumber(vendorId: string, environment: Environment): Promise<number>;
  /** Stores a statement; false when its number or place in the chain is taken (another was made at once). */
  insert(statement: PayoutStatement): Promise<boolean>;
  /** Marks every entry the filter selects, not covered yet, as covered by the statement; their sums. */
  cover(statementId: string, filter: CoverFilter): Promise<CoveredSums>;
  /** Writes the sums of a statement just made (within the database transaction that made it). */
  complete(statement: PayoutStatement): Promise<void>;
  /** Removes a statement just made that covered nothing (within the database transaction that made it). */
  discard(statementId: string): Promise<void>;
  find(id: string): Promise<PayoutStatement | undefined>;
  /** The vendor's statements, newest first. */
  list(vendorId: string, environment: Environment): Promise<PayoutStatement[]>;
  /** The ledger entries a statement covers, oldest first, with their transaction. */
  entries(statementId: string): Promise<StatementLine[]>;
  /** Records the payment of an unpaid statement; false when it was paid already. */
  markPaid(statementId: string, at: string, reference: string): Promise<boolean>;
  /** The vendor's balances per currency: entries not covered yet (payments newer than `heldFrom` counted as held) and the last carry. */
  balances(vendorId: string, environment: Environment, heldFrom: string): Promise<VendorBalance[]>;
}

/** One entry of a statement, as its CSV lists it. */
export interface StatementLine {
  entryId: string;
  transactionId: string;
  type: EntryType;
  createdAt: string;
  amountTotalMinor: number;
  taxMinor: number;
  transactionFeeMinor: number;
  serviceFeeMinor: number;
  incomeMinor: number;
}

/** The ledger's sales of a period as the tax returns add them up (src/domain/books/tax-report.ts). */
export interface TaxRepository {
  /**
   * Entries booked in [from, to) in the environment (one vendor's, or every vendor's for an operator
   * selling for them), summed per buyer country, region, tax rate, currency, reverse charge (with the
   * buyer's VAT ID) and the vendor's own country (null when it has set none).
   */
  groups(filter: {
    vendorId?: string | undefined;
    environment: Environment;
    from: string;
    to: string;
  }): Promise<TaxGroup[]>;
}
