// The payout tables of the schema (src/store/schema.ts), kept apart so that file stays readable.

/** A vendor's payout statement in one currency (src/domain/books). */
export interface PayoutStatementsTable {
  id: string;
  vendor_id: string;
  environment: string;
  currency: string;
  number: number;
  seq: number;
  until: string;
  held_from: string;
  created_at: string;
  entry_count: number;
  gross_minor: number;
  tax_minor: number;
  refunds_minor: number;
  chargebacks_minor: number;
  processor_fees_minor: number;
  platform_fees_minor: number;
  rounding_minor: number;
  income_minor: number;
  carried_in_minor: number;
  payable_minor: number;
  carried_out_minor: number;
  paid_at: string | null;
  paid_reference: string | null;
  /** The highest `book_seq` of the ledger when the statement was made: its range (null: made before ranges, its entries listed). */
  covers_to: number | string | null;
}

/** Which statement made before migration 0025 covers a ledger entry (the entry id is the key); later ones cover by range. */
export interface PayoutStatementEntriesTable {
  entry_id: string;
  statement_id: string;
}
