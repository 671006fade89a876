import type { Clock } from '../clock.ts';
import { bookingFor, type Booking, type Bookings } from './attempt-outcomes.ts';
import type { AnyAttempt, AttemptKind, AttemptOf, Store } from '../ports.ts';
import type { ReconcileOne } from './reconciling-an-attempt.ts';

/**
 * What one reconciler run did: settled (booked or declined), voided (the gateway never had them), still
 * open, handed to an operator; and of the voided, the browser checkout sessions left unfinished (expired).
 */
export interface ReconcileReport {
  settled: number;
  voided: number;
  open: number;
  unresolved: number;
  expiredSessions: number;
}

/** A purchase paid in a session of the processor's in the browser (src/domain/checkout/purchases.ts). */
const isBrowserSession = (attempt: AnyAttempt) =>
  attempt.kind === 'PURCHASE' && (attempt as AttemptOf<'PURCHASE'>).plan?.session === true;

/**
 * The reconciler of the billing worker's loop: every open attempt of every kind. Renewals are
 * billing's to ask again while their subscription is still billed; one left open when its
 * subscription stopped being billed (cancelled or refunded before billing asked again) is the
 * reconciler's, so the money that moved for it is recorded.
 */
export function attemptReconciler(deps: {
  store: Pick<Store, 'chargeAttempts'>;
  clock: Clock;
  /** The charge protocol (charge-protocol.ts), which looks each attempt up. */
  protocol: { reconcile: ReconcileOne };
  bookings: Omit<Bookings, 'RENEWAL'>;
  renewals?: { booking: Booking<'RENEWAL'>; billedByBilling(attempt: AttemptOf<'RENEWAL'>): Promise<boolean> };
  /** Attempts recorded or asked again more recently than this may still be in flight in a request; the reconciler leaves them alone. */
  graceMs: number;
  /**
   * A browser session nobody has asked the processor about (no confirmation page opened: left
   * unfinished, or started by a script that never meant to pay) is asked about only once this old,
   * when the processor cancels it as expired: one look and one cancel, instead of a look every run
   * that would spend the processor's API limit. A payment made in it is booked by the processor's
   * event, or by the confirmation page the browser opens next; should both be lost, by this look.
   */
  sessionLifetimeMs?: number | undefined;
}) {
  const kinds: AttemptKind[] = [
    ...(Object.keys(deps.bookings) as AttemptKind[]),
    ...(deps.renewals ? (['RENEWAL'] as const) : []),
  ];
  const bookings: Partial<Bookings> = { ...deps.bookings, RENEWAL: deps.renewals?.booking };
  return {
    async run(limit = 200): Promise<ReconcileReport> {
      const report: ReconcileReport = { settled: 0, voided: 0, open: 0, unresolved: 0, expiredSessions: 0 };
      const now = deps.clock.now().getTime();
      const idleSince = new Date(now - deps.graceMs).toISOString();
      const sessionsRecordedBefore =
        deps.sessionLifetimeMs === undefined ? undefined : new Date(now - deps.sessionLifetimeMs).toISOString();
      for (const attempt of await deps.store.chargeAttempts.listOpen({
        idleSince,
        kinds,
        limit,
        sessionsRecordedBefore,
      })) {
        if (attempt.kind === 'RENEWAL' && (attempt.plan === null || (await deps.renewals!.billedByBilling(attempt))))
          continue;
        const after = await deps.protocol.reconcile(attempt, bookingFor(bookings, attempt));
        if (after.status === 'VOIDED') {
          report.voided++;
          if (isBrowserSession(attempt)) report.expiredSessions++;
        } else if (after.status === 'UNRESOLVED') report.unresolved++;
        else if (after.status === 'PENDING' || after.status === 'UNKNOWN') report.open++;
        else report.settled++;
      }
      return report;
    },

    /** What an operator sees with `opentill attempts list`: every open attempt, and the unresolved. */
    listOpen: (limit = 1000) => deps.store.chargeAttempts.listOpen({ idleSince: '9999-12-31T00:00:00.000Z', limit }),
  };
}

export type AttemptReconciler = ReturnType<typeof attemptReconciler>;
