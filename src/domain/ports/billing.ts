import type { ChangeFlag, Environment, LedgerEntry, Scope, Transaction } from '../model.ts';
import type { AttemptOf, ChargeAttemptStatus } from './attempts.ts';

// What the renewal engine claims and writes (src/domain/billing/billing.ts), and the sandbox clocks.

/** What billing decides on: a subscription's status and schedule as they are now. */
export type BillingState = Pick<
  Transaction,
  'status' | 'whoCanceled' | 'lastCharge' | 'nextCharge' | 'chargeFrequency' | 'billing'
>;

/** What billing reads of a due subscription. */
export type DueTransaction = Pick<
  Transaction,
  | 'id'
  | 'vendorId'
  | 'environment'
  | 'productId'
  | 'customizedProductId'
  | 'status'
  | 'chargeFrequency'
  | 'country'
  | 'region'
  | 'couponId'
  | 'reverseCharge'
  | 'postalCode'
  | 'quantity'
  | 'currency'
  | 'nextCharge'
  | 'billing'
>;

/** A place in the due order: the next charge and id of the last row a claim took. */
export interface ClaimCursor {
  nextCharge: string;
  id: string;
}

export interface DueSubscription {
  transaction: DueTransaction;
  /** The stored payment method's token, if the subscription has one. */
  token: string | null;
}

/** One billing step's result for one subscription, written in one database transaction with the rest of its batch. */
export interface BillingWrite {
  transactionId: string;
  state: {
    status: Transaction['status'];
    whoCanceled: Transaction['whoCanceled'];
    lastCharge: string | null;
    nextCharge: string | null;
    period: number;
    failedAttempts: number;
    /** null releases the row; a time keeps it from workers until then (an unknown gateway outcome). */
    leaseUntil: string | null;
  };
  change: { flag: ChangeFlag; at: string } | null;
  entry: (LedgerEntry & { vendorId: string; environment: Environment; description: string | null }) | null;
  attempt: {
    id: string;
    status: ChargeAttemptStatus;
    gatewayReference: string | null;
    failureCode: string | null;
    updatedAt: string;
  } | null;
}

export interface BillingRepository {
  /**
   * Up to `limit` subscriptions due by `dueBy` (in one vendor's sandbox when `sandboxVendorId` is
   * set), oldest due first, leaving out rows held for a retry until `now` and rows with a renewal
   * attempt still PENDING that was recorded after `attemptsSince` (in flight at another worker).
   * Subscriptions of a vendor whose renewals the operator stopped are left out, except those ending
   * at the end of a cancelled period (docs/decisions.md §24).
   * PostgreSQL skips and locks rows until the surrounding database transaction ends. With `after`,
   * only rows past it in that order (by next charge, then id): where the claim before this one ended.
   */
  claimDue(query: {
    dueBy: string;
    sandboxVendorId?: string | undefined;
    now: string;
    attemptsSince: string;
    limit: number;
    after?: ClaimCursor | undefined;
  }): Promise<DueSubscription[]>;
  /**
   * The vendor's live subscriptions (active or in trial) in the scope with a renewal due by `dueBy`,
   * not held for a retry and with no renewal attempt open: those whose renewals the operator stopped
   * and now lets go on (docs/decisions.md §24).
   */
  overdueOf(scope: Scope, dueBy: string): Promise<string[]>;
  /** The rows as they are now, locked until the surrounding database transaction ends. */
  lockMany(ids: readonly string[]): Promise<Map<string, BillingState>>;
  /** Inserts the attempts whose keys are new; returns the attempt of every key, earlier ones as they were. */
  recordAttempts(attempts: readonly AttemptOf<'RENEWAL'>[]): Promise<Map<string, AttemptOf<'RENEWAL'>>>;
  /** Writes each outcome: the row's new state and change flag, its ledger entry, its attempt. */
  apply(writes: readonly BillingWrite[]): Promise<void>;
  /** Marks customized products expired by `before` and clears their personal data; returns how many. */
  expireOffers(before: string, sandboxVendorId?: string): Promise<number>;
}

export interface SandboxClockRepository {
  list(): Promise<{ vendorId: string; offsetMs: number }[]>;
  /** The vendor's offset as stored (0 when its clock never moved): a sandbox request reads it, whichever process moved it. */
  offsetOf(vendorId: string): Promise<number>;
  set(vendorId: string, offsetMs: number, at: string): Promise<void>;
  /** The vendor's sandbox subscriptions with a billing step due by `dueBy`, counted up to `limit`, and the earliest such step. */
  backlog(vendorId: string, dueBy: string, limit: number): Promise<{ due: number; oldestDue: string | null }>;
}
