import type { ChangeFlag, LedgerEntry, Scope, Transaction } from '../model.ts';

// Outbound webhooks: the vendors' endpoints and the outbox of events (src/domain/webhooks).

/** A vendor's endpoint in one environment, as the panel and the CLI show it (never its secret). */
export interface WebhookEndpoint {
  id: string;
  scope: Scope;
  url: string;
  enabled: boolean;
  /** Since when every try failed (null: the last one went through, or none was made). */
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  createdAt: string;
}

/** An endpoint with its signing secret, sealed under the server's secret (src/domain/webhooks/endpoint-secrets.ts). */
export interface StoredWebhookEndpoint extends WebhookEndpoint {
  sealedSecret: string;
}

export type WebhookEventStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** One event for one endpoint in the outbox, with its tries. */
export interface WebhookEvent {
  /** The `webhook-id` of every try: a receiver recognises a second delivery by it. */
  id: string;
  endpointId: string;
  scope: Scope;
  transactionId: string | null;
  /** The transaction's change count when the event was written: the order of its events. */
  seq: number;
  /** The change flag that caused it, or `TEST`. */
  kind: ChangeFlag | 'TEST';
  /** What the event says (JSON): the transaction and the ledger entry as they were when it was written. */
  payload: string;
  status: WebhookEventStatus;
  tries: number;
  nextTryAt: string;
  /** When retrying stops ('' until the first try). */
  giveUpAt: string;
  lastStatus: number | null;
  lastError: string | null;
  lastTryAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** A try's outcome, written by the worker that holds the event's lease. */
export interface WebhookOutcome {
  status: WebhookEventStatus;
  tries: number;
  nextTryAt: string;
  giveUpAt: string;
  lastStatus: number | null;
  lastError: string | null;
  lastTryAt: string | null;
  deliveredAt: string | null;
}

export interface WebhookRepository {
  addEndpoint(endpoint: StoredWebhookEndpoint): Promise<void>;
  /** The scope's endpoints not removed, oldest first. */
  endpoints(scope: Scope): Promise<WebhookEndpoint[]>;
  endpoint(id: string): Promise<StoredWebhookEndpoint | undefined>;
  /** Removes the scope's endpoint (its waiting events fail with `reason`); false when it is not the scope's. */
  removeEndpoint(scope: Scope, id: string, at: string, reason: string): Promise<boolean>;
  /** Records a try of an endpoint: a success clears its failing time, a failure sets it if unset. Returns it. */
  recordTry(id: string, ok: boolean, at: string): Promise<string | null>;
  /** Enables the scope's disabled endpoint again, its failures forgotten; false when there is none such. */
  enableEndpoint(scope: Scope, id: string): Promise<boolean>;
  /** Disables an enabled endpoint; false when it was not enabled. */
  disableEndpoint(id: string, at: string, reason: string): Promise<boolean>;
  /** Writes events as they are (the CLI's test event, after its try). */
  insertEvents(events: WebhookEvent[]): Promise<void>;
  /**
   * Leases up to `limit` pending events due by `now` that no live lease holds, of enabled endpoints,
   * each only when no earlier event of its transaction waits for the same endpoint.
   */
  claim(q: { now: string; owner: string; leaseUntil: string; limit: number }): Promise<WebhookEvent[]>;
  /** Records a try's outcome and ends the lease, if `owner` still holds it; false otherwise. */
  settle(id: string, owner: string, outcome: WebhookOutcome): Promise<boolean>;
  /** Ends `owner`'s leases of these events unchanged: another run may take them at once. */
  release(ids: readonly string[], owner: string): Promise<void>;
  /** The scope's latest events, newest first (of one endpoint when given). */
  log(scope: Scope, q: { limit: number; endpointId?: string | undefined }): Promise<WebhookEvent[]>;
  find(scope: Scope, id: string): Promise<WebhookEvent | undefined>;
  /** Puts a delivered or failed event back in the outbox, due at `now`; false when it is not the scope's or waits already. */
  replay(scope: Scope, id: string, now: string): Promise<boolean>;
  /** Deletes the delivered and given-up events written before `before`; how many. */
  purgeSettled(before: string): Promise<number>;
}

/** What an event of a change carries, as the store writes it in the change's database transaction. */
export interface WebhookSnapshot {
  transaction: Transaction;
  /** The ledger entry booked in that database transaction for it (a payment, a refund), if any. */
  entry: LedgerEntry | null;
}
