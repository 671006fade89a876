// The lasting coupons' columns and tables of the schema (src/store/schema.ts, migration 0033), kept apart so that file stays within its size.
import type { Generated } from 'kysely';

/** A product's discount code (its lasting terms below). */
export interface CouponsTable extends CouponLastingColumns {
  id: string;
  vendor_id: string;
  environment: string;
  product_id: string;
  code: string;
  percent_off: string | null;
  amounts_off_json: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

/** Duration, caps, restrictions and start of a coupon (docs/decisions.md §38). */
export interface CouponLastingColumns {
  duration: Generated<string>;
  duration_periods: number | null;
  max_redemptions: number | null;
  /** Redemptions held or used: raised only by a conditional UPDATE under `max_redemptions`. */
  redemptions: Generated<number>;
  max_per_customer: number | null;
  other_product_ids_json: string | null;
  frequencies_json: string | null;
  first_purchase_only: Generated<number>;
  starts_at: string | null;
}

/** One purchase's use of a coupon: HELD while its payment is open, USED once booked, RELEASED when it failed. */
export interface CouponRedemptionsTable {
  transaction_id: string;
  coupon_id: string;
  email_lower: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** A coupon's redemptions held or used by one e-mail, raised only under `max_per_customer`. */
export interface CouponCustomerRedemptionsTable {
  coupon_id: string;
  email_lower: string;
  redemptions: number;
}

/** The coupon a subscription was bought with: its renewals apply it for its duration. */
export interface TransactionCouponColumns {
  coupon_id: Generated<string | null>;
}

/** What the coupon took off a payment's net. */
export interface EntryDiscountColumns {
  discount_minor: number;
}
