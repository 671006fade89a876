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
}

/** Which statement covers a ledger entry: at most one (the entry id is the key). */
export interface PayoutStatementEntriesTable {
  entry_id: string;
  statement_id: string;
}
