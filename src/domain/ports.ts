import type {
  ChangeFlag,
  Coupon,
  CustomerEmailKind,
  CustomizedProduct,
  Environment,
  LedgerEntry,
  PaymentMethod,
  Product,
  Scope,
  Transaction,
  Vendor,
  VendorSettings,
} from './model.ts';
import type { AttemptPlans } from './attempt-plans.ts';
import type { EmailFacts } from './customer-email-model.ts';
import type { IdempotencyRecord } from './idempotency.ts';
import type { PanelUser, StoredPanelSession } from './panel-accounts.ts';
import type { StoredFlash } from './panel-flashes.ts';
import type { StoredAdminSession } from './hosted-links.ts';

/** A customer e-mail in the outbox. */
export interface OutboxEmail {
  id: string;
  scope: Scope;
  kind: CustomerEmailKind;
  eventKey: string;
  facts: EmailFacts;
  status: 'PENDING' | 'SENT' | 'FAILED' | 'SKIPPED';
  tries: number;
  nextTryAt: string;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

export interface NoticeDue {
  kind: 'TRIAL_ENDING' | 'RENEWAL_UPCOMING';
  scope: Scope;
  transactionId: string;
  nextCharge: string;
}

/**
 * What the domain needs from storage, in the domain's words. src/store implements it for SQLite and
 * PostgreSQL; services never see SQL. Inside `transaction`, every call is part of one database
 * transaction, and `lockTransaction` holds the row until it commits.
 */
export interface Repositories {
  vendors: {
    insert(vendor: Vendor): Promise<void>;
    find(id: string): Promise<Vendor | undefined>;
    list(): Promise<Vendor[]>;
    updateSettings(id: string, settings: VendorSettings): Promise<boolean>;
  };
  credentials: {
    insert(credential: StoredCredential): Promise<void>;
    findByLogin(login: string): Promise<StoredCredential | undefined>;
    listForVendor(vendorId: string): Promise<StoredCredential[]>;
    revoke(scope: Scope, id: string, at: string): Promise<boolean>;
  };
  products: {
    insert(product: Product): Promise<void>;
    find(scope: Scope, id: string): Promise<Product | undefined>;
    list(scope: Scope): Promise<Product[]>;
    /** Changes what a product shows and costs from now on; its type and frequency stay. */
    update(scope: Scope, id: string, fields: Pick<Product, 'name' | 'description' | 'trialDays' | 'issuesLicences' | 'prices'>): Promise<boolean>;
    /** The vendor of a product or customized product id, for public pages that carry no credential. */
    ownerOf(id: string, environment: Environment): Promise<string | undefined>;
  };
  customizedProducts: {
    insert(product: CustomizedProduct): Promise<void>;
    find(scope: Scope, id: string): Promise<CustomizedProduct | undefined>;
  };
  coupons: {
    insert(coupon: Coupon): Promise<void>;
    /** The coupon of this product with this code (upper case), revoked or not. */
    findByCode(scope: Scope, productId: string, code: string): Promise<Coupon | undefined>;
    list(scope: Scope): Promise<Coupon[]>;
    revoke(scope: Scope, id: string, at: string): Promise<boolean>;
  };
  customers: {
    /** The customer with this e-mail (case-insensitive), created if new; returns its id. */
    upsert(scope: Scope, customer: { id: string; email: string; firstName: string | null; lastName: string | null; createdAt: string }): Promise<string>;
    /** The customer's name as given at checkout. */
    find(scope: Scope, id: string): Promise<{ email: string; firstName: string | null; lastName: string | null } | undefined>;
  };
  paymentMethods: {
    insert(scope: Scope, customerId: string, gateway: string, method: PaymentMethod, createdAt: string): Promise<void>;
    find(id: string): Promise<PaymentMethod | undefined>;
  };
  transactions: {
    insert(transaction: Transaction): Promise<void>;
    find(scope: Scope, id: string): Promise<Transaction | undefined>;
    /** Reads the row and locks it until the surrounding database transaction ends. */
    lock(scope: Scope, id: string): Promise<Transaction | undefined>;
    listByEmail(scope: Scope, email: string): Promise<Transaction[]>;
    /** The vendor's latest transactions, newest first. */
    recent(scope: Scope, limit: number): Promise<Transaction[]>;
    /** Applies the patch; with a change flag, the transaction (re-)enters the changed feed. */
    update(scope: Scope, id: string, patch: TransactionPatch, change?: { flag: ChangeFlag; at: string }): Promise<void>;
    /** A patch that moves no money, in one statement: the row as it is after it, or undefined when it is not the vendor's. */
    updateReturning(scope: Scope, id: string, patch: TransactionPatch): Promise<Transaction | undefined>;
  };
  entries: {
    /** A payment (a reversal goes through `insertReversal`). */
    insert(entry: LedgerEntry & { vendorId: string; environment: Environment; description: string | null }): Promise<void>;
    /**
     * A reversal of a payment, or of one of its reversals (a dispute won, a refund failed), or a few of
     * one payment's, the first reversing something already booked: refused, under a lock of the
     * payment's row, if the payment would then be reversed by more than it was or by less than nothing
     * (src/domain/reversals.ts). Must run in a database transaction, which a refusal rolls back.
     */
    insertReversal(...entries: (LedgerEntry & { vendorId: string; environment: Environment; description: string | null })[]): Promise<void>;
    listForTransaction(transactionId: string): Promise<LedgerEntry[]>;
    /** The entry behind an invoice link, with the vendor it belongs to. */
    findByHash(environment: Environment, hashId: string): Promise<(LedgerEntry & { vendorId: string }) | undefined>;
    /** The transaction's entry that keeps this processor id (a payment's, a refund's, a dispute's), if any. */
    findByExternalId(transactionId: string, externalId: string): Promise<LedgerEntry | undefined>;
  };
  licences: {
    insert(licence: { id: string; scope: Scope; productId: string; transactionId: string; key: string; createdAt: string }): Promise<void>;
    find(scope: Scope, productId: string, key: string): Promise<{ transactionId: string } | undefined>;
    keyOf(scope: Scope, transactionId: string): Promise<string | undefined>;
  };
  feed: {
    /** Pending changes, oldest first; records what was shown so marking cannot drop a later change. */
    list(scope: Scope, limit: number): Promise<{ transactions: Transaction[]; more: boolean }>;
    /** Returns false when the transaction is not the vendor's. */
    markProcessed(scope: Scope, id: string): Promise<boolean>;
  };
  chargeAttempts: {
    /** Records the attempt unless its key is taken: the attempt recorded, or the one recorded earlier under its key (of the same kind: a key names its kind). */
    record<K extends AttemptKind>(attempt: AttemptOf<K>): Promise<{ attempt: AttemptOf<K>; fresh: boolean }>;
    findByKey(key: string): Promise<ChargeAttempt | undefined>;
    /**
     * Settles an open (PENDING or UNKNOWN) attempt; false when it was no longer open, so that of two
     * settlers racing for one attempt, exactly one books it.
     */
    settle(
      id: string,
      patch: { status: ChargeAttemptStatus; gatewayReference: string | null; failureCode: string | null; transactionId?: string; updatedAt: string },
    ): Promise<boolean>;
    /**
     * Open attempts (PENDING or UNKNOWN) neither recorded nor asked about again after `idleSince`, oldest
     * first; with `sessionsRecordedBefore`, leaving out the browser sessions recorded after it that
     * nobody has asked the processor about yet (open purchases still PENDING with their session's reference noted).
     */
    listOpen(query: { idleSince: string; kinds?: readonly AttemptKind[]; limit: number; sessionsRecordedBefore?: string }): Promise<ChargeAttempt[]>;
    /** Notes that an open attempt is being asked about again at `at`: its request may be on its way from then. */
    markAsked(id: string, at: string): Promise<void>;
    /** An open attempt of this kind for the transaction, if any. */
    findOpenFor(transactionId: string, kind: AttemptKind): Promise<ChargeAttempt | undefined>;
    /** Sets the processor's reference of a still open attempt (its browser session). */
    noteReference(id: string, reference: string): Promise<void>;
    findById(id: string): Promise<ChargeAttempt | undefined>;
    /** The latest attempt of a kind for a transaction, settled or not. */
    latestFor(transactionId: string, kind: AttemptKind): Promise<ChargeAttempt | undefined>;
  };
  billing: {
    /**
     * Up to `limit` subscriptions due by `dueBy` (in one vendor's sandbox when `sandboxVendorId` is
     * set), oldest due first, leaving out rows held for a retry until `now` and rows with a renewal
     * attempt still PENDING that was recorded after `attemptsSince` (in flight at another worker).
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
    /** The rows as they are now, locked until the surrounding database transaction ends. */
    lockMany(ids: readonly string[]): Promise<Map<string, BillingState>>;
    /** Inserts the attempts whose keys are new; returns the attempt of every key, earlier ones as they were. */
    recordAttempts(attempts: readonly AttemptOf<'RENEWAL'>[]): Promise<Map<string, AttemptOf<'RENEWAL'>>>;
    /** Writes each outcome: the row's new state and change flag, its ledger entry, its attempt. */
    apply(writes: readonly BillingWrite[]): Promise<void>;
    /** Marks customized products expired by `before` and clears their personal data; returns how many. */
    expireOffers(before: string, sandboxVendorId?: string): Promise<number>;
  };
  sandboxClocks: {
    list(): Promise<{ vendorId: string; offsetMs: number }[]>;
    /** The vendor's offset as stored (0 when its clock never moved): a sandbox request reads it, whichever process moved it. */
    offsetOf(vendorId: string): Promise<number>;
    set(vendorId: string, offsetMs: number, at: string): Promise<void>;
    /** The vendor's sandbox subscriptions with a billing step due by `dueBy`, counted up to `limit`, and the earliest such step. */
    backlog(vendorId: string, dueBy: string, limit: number): Promise<{ due: number; oldestDue: string | null }>;
  };
  panel: {
    insertUser(user: PanelUser): Promise<void>;
    findUserByEmail(email: string): Promise<PanelUser | undefined>;
    /** The vendor's first panel login, if it has one. */
    findUserByVendor(vendorId: string): Promise<PanelUser | undefined>;
    updatePassword(userId: string, passwordHash: string): Promise<void>;
    insertSession(session: StoredPanelSession): Promise<void>;
    /** The live session with this hash and its user, or undefined. */
    findSession(idHash: string, now: string): Promise<(Pick<StoredPanelSession, 'csrfToken' | 'expiresAt'> & { user: PanelUser }) | undefined>;
    deleteSession(idHash: string): Promise<void>;
  };
  panelFlashes: {
    /** Keeps the session's flash (replacing one not yet taken) and deletes every flash expired by `now`. */
    put(flash: StoredFlash, now: string): Promise<void>;
    /** Deletes the session's flash and answers it if it was still live at `now`: of two takes at once, one gets it. */
    take(sessionHash: string, now: string): Promise<string | undefined>;
  };
  adminSessions: {
    insert(session: StoredAdminSession): Promise<void>;
    /** The session, and whether the panel session that opened it (if any) is still signed in. */
    find(idHash: string): Promise<(StoredAdminSession & { openerSignedIn: boolean }) | undefined>;
    /** Ends the live sessions a panel session opened (its sign-out); answers how many. */
    revokeOpenedBy(panelSessionHash: string, at: string): Promise<number>;
    /** Ends every live session of the vendor in this environment; answers how many. */
    revokeAll(scope: Scope, at: string): Promise<number>;
    /** Forgets the vendor's sessions that expired by `before`. */
    deleteExpired(scope: Scope, before: string): Promise<void>;
  };
  processorEvents: {
    /** Stores the event unless its id is stored already; `fresh` says whether this call stored it. */
    record(event: NewProcessorEvent): Promise<{ fresh: boolean }>;
    /** Unprocessed events whose next try is due by `now`, oldest processor time first. */
    listDue(now: string, limit: number): Promise<StoredProcessorEvent[]>;
    /** Done with; `refusal`: why what it reported was not booked (it did not fit the ledger), kept for an operator. */
    markProcessed(id: string, at: string, refusal?: string): Promise<void>;
    /** Counts a failed try and when to try again. */
    markFailed(id: string, error: string, nextTryAt: string): Promise<void>;
  };
  /** What the vendor panel's dashboard reads (src/store/dashboard-store.ts). */
  dashboard: DashboardRepository;
  /** The customer e-mail outbox (src/domain/customer-emails.ts). */
  customerEmails: {
    /** Queues each e-mail unless its event key already queued one (then it is left as it is). */
    enqueue(emails: OutboxEmail[]): Promise<void>;
    /** Leases up to `limit` e-mails due by `now` that no live lease holds, oldest first; PostgreSQL skips rows another worker is claiming. */
    claim(q: { now: string; owner: string; leaseUntil: string; limit: number }): Promise<OutboxEmail[]>;
    /** Records a try's outcome and ends the lease, if `owner` still holds it; false otherwise. */
    settle(
      id: string,
      owner: string,
      outcome: { status: OutboxEmail['status']; tries: number; nextTryAt: string; lastError: string | null; sentAt: string | null },
    ): Promise<boolean>;
    /** The scope's latest e-mails, newest first, with the address each goes to. */
    list(scope: Scope, limit: number): Promise<(OutboxEmail & { recipient: string | null })[]>;
    /**
     * Subscriptions whose notice is due and not yet queued (no e-mail with its `noticeKey`): in a trial
     * ending after `now` and by `trialUntil`, or yearly, live, not in dunning, renewing by `yearlyUntil`.
     */
    noticesDue(q: { now: string; trialUntil: string; yearlyUntil: string; sandboxVendorId: string | undefined; limit: number }): Promise<NoticeDue[]>;
  };
  operations: {
    /** Work waiting, each count stopping at `cap`: subscriptions due by `now`, open charge attempts, processor events not yet handled. */
    waiting(now: string, cap: number): Promise<{ billingDue: number; openAttempts: number; eventsWaiting: number; emailsWaiting: number }>;
  };
  idempotency: {
    /** Claims the key; if it was already claimed, returns the earlier record instead. */
    claim(scope: Scope, key: string, requestHash: string, at: string): Promise<IdempotencyRecord | undefined>;
    /** Claims anew a key still held by the claim made at `claimedAt` (its request died); false if another request got there first. */
    takeOver(scope: Scope, key: string, requestHash: string, claimedAt: string, at: string): Promise<boolean>;
    complete(scope: Scope, key: string, statusCode: number, body: string): Promise<void>;
    release(scope: Scope, key: string): Promise<void>;
    purgeOlderThan(at: string): Promise<number>;
  };
}

export interface Store extends Repositories {
  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
}

export interface StoredCredential {
  id: string;
  vendorId: string;
  environment: Environment;
  login: string;
  secretHash: string;
  createdAt: string;
  revokedAt: string | null;
}

export type TransactionPatch = Partial<
  Pick<Transaction, 'status' | 'assignedEmail' | 'payload' | 'whoCanceled' | 'lastCharge' | 'nextCharge' | 'paymentMethodId'>
>;

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

/** An attempt of one kind, with that kind's plan (src/domain/attempt-plans.ts): what booking a success writes. */
export type AttemptOf<K extends AttemptKind> = AttemptFields & { kind: K; plan: AttemptPlans[K] };

/** An attempt as read: its kind tells its plan's type. */
export type ChargeAttempt = { [K in AttemptKind]: AttemptOf<K> }[AttemptKind];

/** An attempt of whatever kind, where only its common fields matter (moving money under its id, writing its outcome). */
export type AnyAttempt = AttemptOf<AttemptKind>;

/** An inbound processor event as it is first stored: due at once, never tried. */
export interface NewProcessorEvent {
  /** `<provider>:<environment>:<event id>`: a second delivery of the event has the same id. */
  id: string;
  provider: string;
  environment: Environment;
  eventId: string;
  type: string;
  /** The processor's time of the event. */
  createdAt: string;
  payload: string;
  receivedAt: string;
}

export interface StoredProcessorEvent extends NewProcessorEvent {
  processedAt: string | null;
  tries: number;
  lastError: string | null;
  nextTryAt: string;
}

/** What billing decides on: a subscription's status and schedule as they are now. */
export type BillingState = Pick<Transaction, 'status' | 'whoCanceled' | 'lastCharge' | 'nextCharge' | 'chargeFrequency' | 'billing'>;

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
  | 'reverseCharge'
  | 'postalCode'
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
  attempt: { id: string; status: ChargeAttemptStatus; gatewayReference: string | null; failureCode: string | null; updatedAt: string } | null;
}

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
  ): Promise<{ bucket: string; currency: string; paidMinor: number; refundedMinor: number; refunds: number; payments: number }[]>;
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
    }[]
  >;
  /** Subscriptions that stopped renewing (cancelled, ended by failed renewals, refunded, charged back) at or after `since`, not counting those a plan switch replaced. */
  churned(scope: Scope, since: string): Promise<number>;
  searchTransactions(scope: Scope, filter: TransactionFilter, page: { limit: number; offset: number }): Promise<{ transactions: Transaction[]; total: number }>;
  customers(
    scope: Scope,
    query: string | undefined,
    page: { limit: number; offset: number },
  ): Promise<{
    customers: { id: string; email: string; firstName: string | null; lastName: string | null; createdAt: string; transactions: number }[];
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
