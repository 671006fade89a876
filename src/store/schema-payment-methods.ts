// The payment methods table of the schema (src/store/schema.ts), kept apart so that file stays readable.
import type { Generated } from 'kysely';

/** A stored way to pay: the processor's token, a card's brand, last 4 and expiry (docs/decisions.md §37). */
export interface PaymentMethodsTable {
  id: string;
  vendor_id: string;
  environment: string;
  customer_id: string;
  gateway: string;
  token: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  created_at: string;
  /** The processor's method type, "card" for every row before migration 0031 (docs/decisions.md §37). */
  type: Generated<string>;
  /** The wallet a card was used through ("apple_pay", "google_pay"); null when none. */
  wallet: string | null;
}
