import { askGateway } from './asking-the-gateway.ts';
import { refundAsOutcome, type Booking } from './attempt-outcomes.ts';
import type { GatewayAccess } from './moving-money.ts';
import type { AttemptKind, AttemptOf } from '../ports.ts';
import { settleAttempt, type SettlingDeps } from './settling-attempts.ts';

/** Attempts still unknown this long are handed to an operator instead of being asked forever. */
export const UNRESOLVED_AFTER_MS = 24 * 3600_000;

/** Asks the gateway what became of an open attempt, and settles it if the gateway knows. */
export async function reconcileAttempt<K extends AttemptKind>(
  deps: GatewayAccess & SettlingDeps,
  attempt: AttemptOf<K>,
  booking: Booking<K>,
): Promise<AttemptOf<K>> {
  const gateway = deps.gateways[attempt.scope.environment];
  const found =
    attempt.kind === 'REFUND'
      ? await askGateway(
          () => gateway.lookupRefund(attempt.id, booking.lookupHint?.(attempt)),
          deps.gatewayTimeoutMs,
        ).then((r) => (r.status === 'NOT_FOUND' ? r : refundAsOutcome(r)))
      : await askGateway(() => gateway.lookupCharge(attempt.id, attempt.gatewayReference), deps.gatewayTimeoutMs);
  if (found.status === 'NOT_FOUND') return settleAttempt(deps, attempt, { status: 'VOIDED' }, booking);
  if (found.status === 'UNKNOWN') {
    const old = deps.clock.now().getTime() - Date.parse(attempt.createdAt) > UNRESOLVED_AFTER_MS;
    return old ? settleAttempt(deps, attempt, { status: 'UNRESOLVED' }, booking) : attempt;
  }
  return settleAttempt(deps, attempt, found, booking);
}

/** The protocol's look at one open attempt (`ChargeProtocol['reconcile']`), as the reconciler calls it. */
export type ReconcileOne = <K extends AttemptKind>(attempt: AttemptOf<K>, booking: Booking<K>) => Promise<AttemptOf<K>>;
