import type { Clock } from '../clock.ts';
import { askGateway } from './asking-the-gateway.ts';
import { refundAsOutcome, type Outcome } from './attempt-outcomes.ts';
import type { PaymentGateway } from './gateway.ts';
import type { Environment } from '../model.ts';
import type { AnyAttempt, Store } from '../ports.ts';

/** The gateways money is moved through, and how long one may take to answer. */
export interface GatewayAccess {
  gateways: Record<Environment, PaymentGateway>;
  /** A gateway call still unanswered after this is UNKNOWN; its late answer is found by the reconciler. */
  gatewayTimeoutMs: number;
}

/** A charge of a token, a refund of a charge, or the outcome of a payment made in the browser. */
export type MoveRequest = { token: string } | { refundOf: string | null } | { session: true };

/**
 * Asks the gateway to move the attempt's money: a charge of its token, a refund of its charge, or
 * (`session`) the outcome of the payment the customer made in the browser under the attempt.
 */
export async function moveMoney(deps: GatewayAccess, attempt: AnyAttempt, request: MoveRequest): Promise<Outcome> {
  const gateway = deps.gateways[attempt.scope.environment];
  if ('session' in request) {
    const found = await askGateway(
      () => gateway.lookupCharge(attempt.id, attempt.gatewayReference),
      deps.gatewayTimeoutMs,
    );
    // A session the processor no longer has (cancelled, expired): nothing was charged.
    return found.status === 'NOT_FOUND'
      ? {
          status: 'DECLINED',
          code: 'card_declined',
          message: 'The payment was cancelled; nothing was charged.',
          permanent: false,
        }
      : found;
  }
  if ('refundOf' in request) {
    const result = await askGateway(
      () =>
        gateway.refund({
          refundId: attempt.id,
          chargeReference: request.refundOf,
          amountMinor: attempt.amountMinor,
          currency: attempt.currency,
        }),
      deps.gatewayTimeoutMs,
    );
    return refundAsOutcome(result);
  }
  return askGateway(
    () =>
      gateway.charge({
        attemptId: attempt.id,
        token: request.token,
        amountMinor: attempt.amountMinor,
        currency: attempt.currency,
        recordedAt: attempt.createdAt,
      }),
    deps.gatewayTimeoutMs,
  );
}

/**
 * Asks again about an attempt recorded earlier (a client's retry). It is marked asked first: the
 * reconciler, which voids what the gateway does not know, leaves it alone for its grace period
 * from now, so it cannot void the attempt while this request may still be on its way, and the
 * money it moves is booked under it.
 */
export async function moveMoneyAgain(
  deps: GatewayAccess & { store: Store; clock: Clock },
  attempt: AnyAttempt,
  request: MoveRequest,
): Promise<Outcome> {
  await deps.store.chargeAttempts.markAsked(attempt.id, deps.clock.now().toISOString());
  return moveMoney(deps, attempt, request);
}

/**
 * Cancels the payment a decline left held at the processor for the customer's authentication,
 * where no page will ask the customer for it (a vendor's charge of a stored card): left open, it
 * could still be completed later, outside any attempt. Best effort: the attempt is settled already.
 */
export async function releaseHeldPayment(deps: GatewayAccess, attempt: AnyAttempt, outcome: Outcome): Promise<void> {
  if (outcome.status !== 'DECLINED' || outcome.code !== 'authentication_required' || !outcome.reference) return;
  const reference = outcome.reference;
  await askGateway(() => deps.gateways[attempt.scope.environment].cancelPending(reference), deps.gatewayTimeoutMs);
}
