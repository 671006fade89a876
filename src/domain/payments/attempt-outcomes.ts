import type { ChargeResult, Decline, RefundResult, TokenizedCard } from './gateway.ts';
import type { AttemptKind, AttemptOf, ChargeAttemptStatus, Repositories } from '../ports.ts';

/** What the gateway's answer comes to for an attempt: money moved, a decline, or nothing known (yet). */
export type Outcome = Extract<ChargeResult, { status: 'SUCCEEDED' }> | Decline | { status: 'UNKNOWN' };

/** How a settled attempt is written, inside the settling database transaction. */
export interface Booking<K extends AttemptKind = AttemptKind> {
  succeeded(
    repos: Repositories,
    attempt: AttemptOf<K>,
    paid: { reference: string; feeMinor: number; method?: TokenizedCard | undefined },
    at: Date,
  ): Promise<void>;
  declined?(repos: Repositories, attempt: AttemptOf<K>, decline: Decline, at: Date): Promise<void>;
  /** The gateway never had the attempt (the reconciler voided it): what it held is given back. */
  voided?(repos: Repositories, attempt: AttemptOf<K>, at: Date): Promise<void>;
  /** What else the gateway needs to find the attempt (a refund's payment), for the reconciler. */
  lookupHint?(attempt: AttemptOf<K>): string | null;
}

/**
 * How an outcome is written on its attempt: its status, the processor's id of what it made (kept from
 * before while nothing is known), and the decline's code. The one mapping, for a single settle and for
 * billing's batches alike.
 */
export function settledAs(
  outcome: Outcome | { status: 'VOIDED' | 'UNRESOLVED' },
  before: { gatewayReference: string | null },
  at: string,
): { status: ChargeAttemptStatus; gatewayReference: string | null; failureCode: string | null; updatedAt: string } {
  return {
    status: outcome.status,
    gatewayReference: referenceAfter(outcome, before),
    failureCode: outcome.status === 'DECLINED' ? outcome.code : null,
    updatedAt: at,
  };
}

/** The processor's id of what the outcome made; an outcome that knows of nothing keeps the one from before. */
function referenceAfter(
  outcome: Outcome | { status: 'VOIDED' | 'UNRESOLVED' },
  before: { gatewayReference: string | null },
): string | null {
  if (outcome.status === 'SUCCEEDED') return outcome.reference;
  if (outcome.status === 'DECLINED') return outcome.reference ?? null;
  return before.gatewayReference;
}

/** Each kind's booking. */
export type Bookings = { [K in AttemptKind]: Booking<K> };

/** The booking of an attempt's own kind (the one cast: TypeScript cannot see that an attempt's kind picks its booking's). */
export function bookingFor<K extends AttemptKind>(bookings: Partial<Bookings>, attempt: AttemptOf<K>): Booking<K> {
  const booking = bookings[attempt.kind] as Booking<K> | undefined;
  if (!booking) throw new Error(`no booking for ${attempt.kind} attempts`);
  return booking;
}

export function refundAsOutcome(result: RefundResult): Outcome {
  if (result.status === 'FAILED')
    return { status: 'DECLINED', code: 'refund_refused', message: result.message, permanent: true };
  return result.status === 'SUCCEEDED' ? { status: 'SUCCEEDED', reference: result.reference, feeMinor: 0 } : result;
}
