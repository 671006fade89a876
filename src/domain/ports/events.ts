import type { CustomerEmailKind, Environment, Scope } from '../model.ts';
import type { EmailFacts } from '../notifications/customer-email-model.ts';

// Processor events, the customer e-mail outbox and the worker's waiting counts.

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

export interface ProcessorEventRepository {
  /** Stores the event unless its id is stored already; `fresh` says whether this call stored it. */
  record(event: NewProcessorEvent): Promise<{ fresh: boolean }>;
  /** Unprocessed events whose next try is due by `now`, oldest processor time first. */
  listDue(now: string, limit: number): Promise<StoredProcessorEvent[]>;
  /** Done with; `refusal`: why what it reported was not booked (it did not fit the ledger), kept for an operator. */
  markProcessed(id: string, at: string, refusal?: string): Promise<void>;
  /** Counts a failed try and when to try again. */
  markFailed(id: string, error: string, nextTryAt: string): Promise<void>;
}

/** The customer e-mail outbox (src/domain/notifications/customer-emails.ts). */
export interface CustomerEmailRepository {
  /** Queues each e-mail unless its event key already queued one (then it is left as it is). */
  enqueue(emails: OutboxEmail[]): Promise<void>;
  /** Leases up to `limit` e-mails due by `now` that no live lease holds, oldest first; PostgreSQL skips rows another worker is claiming. */
  claim(q: { now: string; owner: string; leaseUntil: string; limit: number }): Promise<OutboxEmail[]>;
  /** Records a try's outcome and ends the lease, if `owner` still holds it; false otherwise. */
  settle(
    id: string,
    owner: string,
    outcome: {
      status: OutboxEmail['status'];
      tries: number;
      nextTryAt: string;
      lastError: string | null;
      sentAt: string | null;
    },
  ): Promise<boolean>;
  /** The scope's latest e-mails, newest first, with the address each goes to. */
  list(scope: Scope, limit: number): Promise<(OutboxEmail & { recipient: string | null })[]>;
  /**
   * Subscriptions whose notice is due and not yet queued (no e-mail with its `noticeKey`): in a trial
   * ending after `now` and by `trialUntil`, or yearly, live, not in dunning, renewing by `yearlyUntil`.
   */
  noticesDue(q: {
    now: string;
    trialUntil: string;
    yearlyUntil: string;
    sandboxVendorId: string | undefined;
    limit: number;
  }): Promise<NoticeDue[]>;
}

export interface OperationsRepository {
  /** Work waiting, each count stopping at `cap`: subscriptions due by `now`, open charge attempts, processor events not yet handled. */
  waiting(
    now: string,
    cap: number,
  ): Promise<{ billingDue: number; openAttempts: number; eventsWaiting: number; emailsWaiting: number }>;
}
