import type { Coupon, Scope, SeatPricing, Transaction } from '../model.ts';

// What the vendor panel's overview and lists read.

/** Which transactions the panel lists: every field optional, all of them must hold. */
export interface TransactionFilter {
  /** A transaction id, a customer id or an e-mail (exact, case-insensitive). */
  query?: string | undefined;
  statuses?: readonly string[] | undefined;
  type?: string | undefined;
  productId?: string | undefined;
  customerId?: string | undefined;
  /** ISO times: created at or after `from`, before `to`. */
  from?: string | undefined;
  to?: string | undefined;
}

export interface DashboardRepository {
  /** Ledger sums per day (YYYY-MM-DD) or month (YYYY-MM) and currency: net paid, net refunded (positive), counts. */
  revenue(
    scope: Scope,
    range: { from: string; to: string; unit: 'day' | 'month' },
  ): Promise<
    { bucket: string; currency: string; paidMinor: number; refundedMinor: number; refunds: number; payments: number }[]
  >;
  /**
   * Live subscriptions (active, trial, cancelled to the end of the period) counted by status, frequency,
   * currency and offer: the sum of their nets at purchase, and the offer's net prices as they are now
   * (undefined when the offer is gone).
   */
  subscriptions(scope: Scope): Promise<
    {
      status: Transaction['status'];
      chargeFrequency: Transaction['chargeFrequency'];
      currency: string;
      count: number;
      netMinor: number;
      prices: Record<string, number> | undefined;
      /** Seats each of them has (docs/decisions.md §39); grouped by it, so the tier is one per group. */
      quantity: number;
      /** The product's volume tiers now (null: not sold per seat, or a customized offer's own prices). */
      seats: SeatPricing | null;
      /** The coupon their next renewal applies (docs/decisions.md §38). */
      coupon?: Pick<Coupon, 'percentOff' | 'amountsOff'> | undefined;
    }[]
  >;
  /** Subscriptions that stopped renewing (cancelled, ended by failed renewals, refunded, charged back) at or after `since`, not counting those a plan switch replaced. */
  churned(scope: Scope, since: string): Promise<number>;
  searchTransactions(
    scope: Scope,
    filter: TransactionFilter,
    page: { limit: number; offset: number },
  ): Promise<{ transactions: Transaction[]; total: number }>;
  customers(
    scope: Scope,
    query: string | undefined,
    page: { limit: number; offset: number },
  ): Promise<{
    customers: {
      id: string;
      email: string;
      firstName: string | null;
      lastName: string | null;
      createdAt: string;
      transactions: number;
    }[];
    total: number;
  }>;
  customer(
    scope: Scope,
    id: string,
  ): Promise<
    | {
        id: string;
        email: string;
        firstName: string | null;
        lastName: string | null;
        createdAt: string;
        cards: { id: string; brand: string; last4: string; expMonth: number; expYear: number }[];
      }
    | undefined
  >;
}
