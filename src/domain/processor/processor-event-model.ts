import type { Bookings, ChargeProtocol } from '../payments/index.ts';
import type { Clock } from '../clock.ts';
import type { PaymentGateway } from '../payments/index.ts';
import type { Environment, Scope, WhoCanceled } from '../model.ts';
import type { ReversalService } from '../payments/index.ts';
import type { ChargeAttempt, Store } from '../ports.ts';

/**
 * What the payment processor tells opentill on its own (DECISIONS.md, "Money safety";
 * docs/decisions.md §6a, §10a, §10b): a payment the customer completed in the browser, a refund made in the
 * processor's dashboard, a dispute. An event is received (its signature checked by the environment's
 * gateway over the raw body) and stored once by its id, answered at once, and acted on later by the
 * worker, oldest processor time first. Acting is idempotent by the processor's ids: every effect is
 * one database transaction that first looks for the entry carrying the processor's id, so replayed,
 * reordered and duplicated events change nothing twice. An event that cannot be acted on yet (the
 * processor unreachable, the payment not booked yet) is tried again later, with a growing pause.
 */
export interface ProcessorEventDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
  protocol: ChargeProtocol;
  bookings: Pick<Bookings, 'PURCHASE' | 'VAULTED' | 'REFUND'>;
  /** A renewal the bank held for the customer's authentication was paid after all: billing books it (once). */
  authenticatedRenewal(attempt: ChargeAttempt, reference: string): Promise<void>;
  /** Books refunds and disputes made at the processor, and their undoing. */
  reversals: ReversalService;
  /** Ends a subscription (at the end of its paid period) or a vaulted method, as the vendor's cancel does (§37). */
  cancel?: (scope: Scope, transactionId: string, who: WhoCanceled) => Promise<unknown>;
}

export type ReceiveResult =
  | { status: 'STORED' | 'DUPLICATE' }
  /** The signature is missing, wrong or too old: nothing was stored. */
  | { status: 'INVALID'; message: string }
  /** This environment's payment processor sends no events of this provider. */
  | { status: 'NOT_FOUND'; message: string };

/**
 * What one run did: events acted on, events that failed (tried again later), events that were not
 * opentill's, and events refused: what they report does not fit the ledger (a refund of more than is
 * left of a payment), so nothing is booked; tried again for a while, then kept, refusal and all, for an operator.
 */
export interface ProcessorEventReport {
  processed: number;
  failed: number;
  ignored: number;
  refused: number;
}

/** What acting on one event came to: the report counts it under this name. */
export type Acted = 'processed' | 'ignored';
