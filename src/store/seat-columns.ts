import type { SeatPricing } from '../domain/model.ts';
import type { ProductSeatColumns } from './schema-seats.ts';

/** A product's seat pricing as its columns (migration 0034); null clears them: one per purchase. */
export function seatColumns(seats: SeatPricing | null): ProductSeatColumns {
  return {
    seat_min_quantity: seats?.minQuantity ?? null,
    seat_max_quantity: seats?.maxQuantity ?? null,
    seat_tiers_json: seats ? JSON.stringify(seats.tiers) : null,
  };
}

/** The seat pricing a product row holds, or null when it is not sold per seat. */
export function seatsOf(row: Partial<ProductSeatColumns>): SeatPricing | null {
  if (row.seat_min_quantity === null || row.seat_min_quantity === undefined) return null;
  return {
    minQuantity: Number(row.seat_min_quantity),
    maxQuantity: Number(row.seat_max_quantity),
    tiers: row.seat_tiers_json ? (JSON.parse(row.seat_tiers_json) as SeatPricing['tiers']) : [],
  };
}
