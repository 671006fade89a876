// The seat columns of the schema (src/store/schema.ts, migration 0034), kept apart so that file stays within its size.
import type { Generated } from 'kysely';

/** A per-seat product's quantity range (null: one per purchase) and volume tiers as JSON [{fromQuantity, prices}]. */
export interface ProductSeatColumns {
  seat_min_quantity: number | null;
  seat_max_quantity: number | null;
  seat_tiers_json: string | null;
}

/** The seats a customized product's link sells, fixed; null: the buyer chooses. */
export interface CustomizedProductSeatColumns {
  quantity: number | null;
}

/** Seats bought; the transaction's net amounts are for all of them. */
export interface TransactionSeatColumns {
  quantity: Generated<number>;
}
