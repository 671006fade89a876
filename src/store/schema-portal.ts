// The customer portal's tables of the schema (src/store/schema.ts, migration 0030), kept apart so that file stays within its size.
import type { Generated } from 'kysely';

/** One-time sign-in links of the customer portal (migration 0030), by the SHA-256 of the token. */
export interface PortalSignInsTable {
  token_hash: string;
  vendor_id: string;
  environment: string;
  email: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** The plans a product's subscribers may switch to in the portal (migration 0030). */
export interface PortalPlanSwitchesTable {
  vendor_id: string;
  environment: string;
  product_id: string;
  to_product_id: string;
}

/** A vendor's portal settings (migration 0030); no row is the default. */
export interface PortalSettingsTable {
  vendor_id: string;
  cancel_now: Generated<number>;
  /** Whether customers may pause their subscriptions on the management page (migration 0036). */
  customer_pause: Generated<number>;
  /** Whether customers may change their seats on the management page (migration 0038). */
  customer_seats: Generated<number>;
}

/** The billing details an invoice or credit note was issued with, kept when the customer edits them (migration 0032). */
export interface IssuedInvoiceBuyersTable {
  entry_id: string;
  transaction_id: string;
  buyer_name: string | null;
  business_name: string | null;
  buyer_address: string | null;
  buyer_vat_id: string | null;
  reverse_charge: number;
  tax_name: string;
}
