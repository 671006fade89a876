import type { Scope, SubscriptionPause } from '../model.ts';

/** A subscription's schedule as a pause or a resume leaves it (docs/decisions.md §41). */
export interface PauseWrite {
  nextCharge: string | null;
  anchor: string;
  anchorPeriod: number;
  pause: SubscriptionPause | null;
}

/** Pauses of subscriptions, and whether a vendor lets customers pause on the management page. */
export interface PauseRepository {
  /** Writes a locked subscription's new schedule and pause (inside the caller's database transaction). */
  write(scope: Scope, id: string, write: PauseWrite): Promise<void>;
  /** Whether a renewal of this subscription is being charged, or its outcome is not known yet. */
  renewalOpen(transactionId: string): Promise<boolean>;
  customerPause(vendorId: string): Promise<boolean>;
  setCustomerPause(vendorId: string, allowed: boolean): Promise<void>;
}
