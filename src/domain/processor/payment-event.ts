import { bookingFor } from '../payments/index.ts';
import type { ProcessorEvent } from '../payments/index.ts';
import type { Environment } from '../model.ts';
import { attemptOf, isOpen, NotYet } from './event-lookups.ts';
import type { Acted, ProcessorEventDeps } from './processor-event-model.ts';

/** The payment or card setup of an attempt changed: ask the processor where it stands and settle. */
export async function actOnPayment(
  deps: ProcessorEventDeps,
  environment: Environment,
  event: Extract<ProcessorEvent, { kind: 'payment' }>,
): Promise<Acted> {
  const attempt = await attemptOf(deps, environment, event.attemptId);
  if (!attempt) return 'ignored';
  const gateway = deps.gateways[environment];
  if (attempt.kind === 'PURCHASE' || attempt.kind === 'VAULTED') {
    if (!isOpen(attempt)) return 'processed';
    const found = await gateway.lookupCharge(attempt.id, event.reference);
    if (found.status === 'UNKNOWN') return 'processed';
    const settled = await deps.protocol.settle(
      attempt,
      found.status === 'NOT_FOUND' ? { status: 'VOIDED' } : found,
      bookingFor(deps.bookings, attempt),
    );
    if (found.status === 'SUCCEEDED' && isOpen(settled))
      throw new NotYet(`attempt ${attempt.id} was paid but could not be booked yet`);
    return 'processed';
  }
  if (attempt.kind === 'RENEWAL') {
    // An open renewal is billing's: it asks about it again itself. One the bank held for the
    // customer's authentication may have been paid since.
    if (attempt.status === 'DECLINED' && attempt.failureCode === 'authentication_required') {
      const found = await gateway.lookupCharge(attempt.id, event.reference);
      if (found.status === 'SUCCEEDED') await deps.authenticatedRenewal(attempt, found.reference);
    }
    return 'processed';
  }
  return 'ignored';
}
