import type { Scope } from '../model.ts';
import type { AttemptPlans } from '../payments/attempt-plans.ts';

// Charge attempts (the charge protocol, src/domain/payments/charge-protocol.ts) and idempotency keys.

export interface IdempotencyRecord {
  requestHash: string;
  state: 'IN_PROGRESS' | 'DONE';
  /** What the first request ended with: an HTTP status and body for the API, a transaction id for a form. */
  statusCode: number | null;
  body: string | null;
  /** When the request now holding the key claimed it. */
  claimedAt: string;
}

/**
 * PENDING: recorded, the gateway asked or about to be. UNKNOWN: the gateway threw, timed out or its
 * answer was lost. Both are open: only the reconciler or a retry under the same key settles them.
 * SUCCEEDED (booked), DECLINED, VOIDED (the gateway never had it; released) and UNRESOLVED (still
 * unknown after a day: an operator's case) are final.
 */
export type ChargeAttemptStatus = 'PENDING' | 'SUCCEEDED' | 'DECLINED' | 'UNKNOWN' | 'VOIDED' | 'UNRESOLVED';

/** What money movement an attempt is. */
export type AttemptKind = keyof AttemptPlans;

interface AttemptFields {
  id: string;
  scope: Scope;
  key: string;
  transactionId: string | null;
  amountMinor: number;
  currency: string;
  status: ChargeAttemptStatus;
  gatewayReference: string | null;
  failureCode: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An attempt of one kind, with that kind's plan (src/domain/payments/attempt-plans.ts): what booking a success writes. */
export type AttemptOf<K extends AttemptKind> = AttemptFields & { kind: K; plan: AttemptPlans[K] };

/** An attempt as read: its kind tells its plan's type. */
export type ChargeAttempt = { [K in AttemptKind]: AttemptOf<K> }[AttemptKind];

/** An attempt of whatever kind, where only its common fields matter (moving money under its id, writing its outcome). */
export type AnyAttempt = AttemptOf<AttemptKind>;

export interface ChargeAttemptRepository {
  /** Records the attempt unless its key is taken: the attempt recorded, or the one recorded earlier under its key (of the same kind: a key names its kind). */
  record<K extends AttemptKind>(attempt: AttemptOf<K>): Promise<{ attempt: AttemptOf<K>; fresh: boolean }>;
  findByKey(key: string): Promise<ChargeAttempt | undefined>;
  /**
   * Settles an open (PENDING or UNKNOWN) attempt; false when it was no longer open, so that of two
   * settlers racing for one attempt, exactly one books it.
   */
  settle(
    id: string,
    patch: {
      status: ChargeAttemptStatus;
      gatewayReference: string | null;
      failureCode: string | null;
      transactionId?: string;
      updatedAt: string;
    },
  ): Promise<boolean>;
  /**
   * Open attempts (PENDING or UNKNOWN) neither recorded nor asked about again after `idleSince`, oldest
   * first; with `sessionsRecordedBefore`, leaving out the browser sessions recorded after it that
   * nobody has asked the processor about yet (open purchases still PENDING with their session's reference noted).
   */
  listOpen(query: {
    idleSince: string;
    kinds?: readonly AttemptKind[];
    limit: number;
    sessionsRecordedBefore?: string;
  }): Promise<ChargeAttempt[]>;
  /** Notes that an open attempt is being asked about again at `at`: its request may be on its way from then. */
  markAsked(id: string, at: string): Promise<void>;
  /** An open attempt of this kind for the transaction, if any. */
  findOpenFor(transactionId: string, kind: AttemptKind): Promise<ChargeAttempt | undefined>;
  /** Sets the processor's reference of a still open attempt (its browser session). */
  noteReference(id: string, reference: string): Promise<void>;
  findById(id: string): Promise<ChargeAttempt | undefined>;
  /** The latest attempt of a kind for a transaction, settled or not. */
  latestFor(transactionId: string, kind: AttemptKind): Promise<ChargeAttempt | undefined>;
}

export interface IdempotencyRepository {
  /** Claims the key; if it was already claimed, returns the earlier record instead. */
  claim(scope: Scope, key: string, requestHash: string, at: string): Promise<IdempotencyRecord | undefined>;
  /** Claims anew a key still held by the claim made at `claimedAt` (its request died); false if another request got there first. */
  takeOver(scope: Scope, key: string, requestHash: string, claimedAt: string, at: string): Promise<boolean>;
  complete(scope: Scope, key: string, statusCode: number, body: string): Promise<void>;
  release(scope: Scope, key: string): Promise<void>;
  purgeOlderThan(at: string): Promise<number>;
}
