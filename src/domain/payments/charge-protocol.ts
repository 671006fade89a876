import type { Booking, Outcome } from './attempt-outcomes.ts';
import { moveMoney, moveMoneyAgain, releaseHeldPayment, type GatewayAccess, type MoveRequest } from './moving-money.ts';
import type { AnyAttempt, AttemptKind, AttemptOf } from '../ports.ts';
import { reconcileAttempt } from './reconciling-an-attempt.ts';
import { settleAttempt, type SettlingDeps } from './settling-attempts.ts';

// The protocol's parts, where callers have always found them.
export { askGateway } from './asking-the-gateway.ts';
export { attemptReconciler, type AttemptReconciler, type ReconcileReport } from './attempt-reconciler.ts';
export {
  bookingFor,
  refundAsOutcome,
  settledAs,
  type Booking,
  type Bookings,
  type Outcome,
} from './attempt-outcomes.ts';
export { UNRESOLVED_AFTER_MS } from './reconciling-an-attempt.ts';

export interface ChargeProtocolDeps extends GatewayAccess, SettlingDeps {}

/**
 * The one protocol by which money moves: purchases, charge-vaulted, refunds (and renewals, which
 * billing runs in batches the same way). docs/decisions.md §10a:
 *  1. record: the attempt (kind, amount, currency, key, plan) is committed before the gateway is
 *     asked; its key comes from what the client sent, so a retry finds the same attempt;
 *  2. ask: the gateway, outside any database transaction, under the attempt's id; a throw or a
 *     timeout is UNKNOWN, never "nothing happened" (moving-money.ts);
 *  3. settle: in one database transaction, the attempt leaves the open states and its booking writes
 *     the ledger entry, status and change flag; the conditional update lets exactly one settler book
 *     (settling-attempts.ts);
 *  4. reconcile: open attempts are looked up at the gateway by id and settled, or voided when the
 *     gateway never had them; after a day of unknowns they become UNRESOLVED for an operator
 *     (reconciling-an-attempt.ts, attempt-reconciler.ts).
 */
export function chargeProtocol(deps: ChargeProtocolDeps) {
  return {
    /** Records the attempt, committed; a key recorded before returns that earlier attempt instead. */
    record: <K extends AttemptKind>(attempt: AttemptOf<K>) => deps.store.chargeAttempts.record(attempt),
    findByKey: (key: string) => deps.store.chargeAttempts.findByKey(key),
    /** Keeps the processor's id of an open attempt's browser session, so every later lookup asks about that one. */
    noteReference: (attempt: AnyAttempt, reference: string) =>
      deps.store.chargeAttempts.noteReference(attempt.id, reference),
    move: (attempt: AnyAttempt, request: MoveRequest): Promise<Outcome> => moveMoney(deps, attempt, request),
    /** A client's retry: marked asked first, so the reconciler leaves it alone meanwhile (moveMoneyAgain). */
    moveAgain(attempt: AnyAttempt, request: MoveRequest): Promise<Outcome> {
      return moveMoneyAgain(deps, attempt, request);
    },
    settle: <K extends AttemptKind>(
      attempt: AttemptOf<K>,
      outcome: Outcome | { status: 'VOIDED' | 'UNRESOLVED' },
      booking: Booking<K>,
    ): Promise<AttemptOf<K>> => settleAttempt(deps, attempt, outcome, booking),
    /** Cancels a payment a decline left held for authentication no page will ask for (releaseHeldPayment). */
    releaseHeld(attempt: AnyAttempt, outcome: Outcome): Promise<void> {
      return releaseHeldPayment(deps, attempt, outcome);
    },
    /** Asks the gateway what became of an open attempt, and settles it if the gateway knows. */
    reconcile<K extends AttemptKind>(attempt: AttemptOf<K>, booking: Booking<K>): Promise<AttemptOf<K>> {
      return reconcileAttempt(deps, attempt, booking);
    },
  };
}

export type ChargeProtocol = ReturnType<typeof chargeProtocol>;
