import type { AuthenticatedRenewal } from '../billing/index.ts';
import { invalidState } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import type { ChargeAttempt } from '../ports.ts';
import { ownTransaction } from './own-transactions.ts';
import type { PortalDeps } from './portal-deps.ts';

/** A renewal the customer's bank holds until the customer confirms it (3-D Secure). */
export interface AwaitingAuthentication {
  amountMinor: number;
  currency: string;
}

/** What confirming a held renewal came to: booked now or before, still on its way, or not paid (the customer did not complete it). */
export type Authentication = AuthenticatedRenewal;

/** A renewal attempt the bank held for authentication, and the period it pays for. */
const heldFor = (
  attempt: ChargeAttempt | undefined,
): { attempt: ChargeAttempt; reference: string; period: number | null } | undefined => {
  if (
    !attempt ||
    attempt.status !== 'DECLINED' ||
    attempt.failureCode !== 'authentication_required' ||
    attempt.gatewayReference === null
  )
    return undefined;
  const period = attempt.kind === 'RENEWAL' && attempt.plan ? attempt.plan.period : null;
  return { attempt, reference: attempt.gatewayReference, period };
};

/**
 * The renewal of the subscription's current period that the bank holds for the customer's
 * authentication: the latest renewal attempt was held (not retried, cancelled or booked since)
 * and the subscription is still active in that period.
 */
export async function awaiting(deps: Pick<PortalDeps, 'store'>, transaction: Transaction) {
  if (
    transaction.type !== 'SUBSCRIPTION' ||
    transaction.status !== 'SUBSCRIPTION_STATUS_ACTIVE' ||
    !transaction.billing
  )
    return undefined;
  const held = heldFor(await deps.store.chargeAttempts.latestFor(transaction.id, 'RENEWAL'));
  return held && held.period === transaction.billing.period ? held : undefined;
}

/** What the browser needs to let the customer confirm the held renewal of their subscription. */
export async function authenticationSession(
  deps: Pick<PortalDeps, 'store' | 'gateways'>,
  scope: Scope,
  email: string,
  id: string,
): Promise<{ clientSecret: string; paymentMethod: string | null }> {
  const held = await awaiting(deps, await ownTransaction(deps, scope, email, id));
  if (!held) throw invalidState('There is no payment of this purchase to confirm.');
  const session = await deps.gateways[scope.environment].authenticationSession(held.reference);
  if (!session) throw invalidState('This payment can no longer be confirmed here; it will be tried again on its own.');
  return { clientSecret: session.clientSecret, paymentMethod: session.method };
}

/**
 * The customer confirmed the held renewal in the browser: it is booked for its period, once,
 * whether this, a second click or the processor's event gets there first.
 */
export async function authenticated(
  deps: Pick<PortalDeps, 'store' | 'gateways' | 'billing'>,
  scope: Scope,
  email: string,
  id: string,
): Promise<Authentication> {
  await ownTransaction(deps, scope, email, id);
  const latest = await deps.store.chargeAttempts.latestFor(id, 'RENEWAL');
  const held = heldFor(latest);
  if (!held) return latest?.status === 'SUCCEEDED' ? 'ALREADY_BOOKED' : 'NOT_PAID';
  // Still waiting for the customer: nothing to book, and the held payment is left as it is.
  if (await deps.gateways[scope.environment].authenticationSession(held.reference)) return 'NOT_PAID';
  return deps.billing.bookAuthenticated(held.attempt, held.reference);
}
