import type { Clock } from '../clock.ts';
import { withinMs } from '../deadline.ts';
import type { ChargeResult, Decline, NotFound, PaymentGateway, RefundResult, TokenizedCard } from './gateway.ts';
import type { Environment } from '../model.ts';
import type { AnyAttempt, AttemptKind, AttemptOf, ChargeAttemptStatus, Repositories, Store } from '../ports.ts';

/**
 * The one protocol by which money moves: purchases, charge-vaulted, refunds (and renewals, which
 * billing runs in batches the same way). docs/decisions.md §10a:
 *  1. record: the attempt (kind, amount, currency, key, plan) is committed before the gateway is
 *     asked; its key comes from what the client sent, so a retry finds the same attempt;
 *  2. ask: the gateway, outside any database transaction, under the attempt's id; a throw or a
 *     timeout is UNKNOWN, never "nothing happened";
 *  3. settle: in one database transaction, the attempt leaves the open states and its booking writes
 *     the ledger entry, status and change flag; the conditional update lets exactly one settler book;
 *  4. reconcile: open attempts are looked up at the gateway by id and settled, or voided when the
 *     gateway never had them; after a day of unknowns they become UNRESOLVED for an operator.
 */
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

export interface ChargeProtocolDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
  /** A gateway call still unanswered after this is UNKNOWN; its late answer is found by the reconciler. */
  gatewayTimeoutMs: number;
  /** Told when money moved but its booking failed (the reconciler will book it): for the operator's log. */
  onBookingFailure?: (err: unknown, attempt: AnyAttempt) => void;
}

/** Attempts still unknown this long are handed to an operator instead of being asked forever. */
export const UNRESOLVED_AFTER_MS = 24 * 3600_000;

export function refundAsOutcome(result: RefundResult): Outcome {
  if (result.status === 'FAILED')
    return { status: 'DECLINED', code: 'refund_refused', message: result.message, permanent: true };
  return result.status === 'SUCCEEDED' ? { status: 'SUCCEEDED', reference: result.reference, feeMinor: 0 } : result;
}

/** Runs one gateway call with a time limit; whatever goes wrong (a throw, no answer in time) is UNKNOWN. */
export async function askGateway<T extends ChargeResult | RefundResult | NotFound>(
  call: () => Promise<T>,
  timeoutMs: number,
): Promise<T | { status: 'UNKNOWN' }> {
  const unknown = { status: 'UNKNOWN' } as const;
  // Through a promise, so a call that throws before it returns one is UNKNOWN too.
  const answer = new Promise<T>((resolve) => resolve(call()));
  return withinMs(
    answer.catch((): { status: 'UNKNOWN' } => unknown),
    timeoutMs,
    unknown,
  );
}

export function chargeProtocol(deps: ChargeProtocolDeps) {
  const at = () => deps.clock.now();
  const ask = <T extends ChargeResult | RefundResult | NotFound>(call: () => Promise<T>) =>
    askGateway(call, deps.gatewayTimeoutMs);

  /**
   * Asks the gateway to move the attempt's money: a charge of its token, a refund of its charge, or
   * (`session`) the outcome of the payment the customer made in the browser under the attempt.
   */
  async function move(
    attempt: AnyAttempt,
    request: { token: string } | { refundOf: string | null } | { session: true },
  ): Promise<Outcome> {
    const gateway = deps.gateways[attempt.scope.environment];
    if ('session' in request) {
      const found = await ask(() => gateway.lookupCharge(attempt.id, attempt.gatewayReference));
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
      const result = await ask(() =>
        gateway.refund({
          refundId: attempt.id,
          chargeReference: request.refundOf,
          amountMinor: attempt.amountMinor,
          currency: attempt.currency,
        }),
      );
      return refundAsOutcome(result);
    }
    return ask(() =>
      gateway.charge({
        attemptId: attempt.id,
        token: request.token,
        amountMinor: attempt.amountMinor,
        currency: attempt.currency,
        recordedAt: attempt.createdAt,
      }),
    );
  }

  /**
   * Writes an outcome exactly once. UNKNOWN leaves the attempt open. Returns the attempt as it ends
   * up, and whether this call was the one that settled it.
   */
  async function settle<K extends AttemptKind>(
    attempt: AttemptOf<K>,
    outcome: Outcome | { status: 'VOIDED' | 'UNRESOLVED' },
    booking: Booking<K>,
  ): Promise<AttemptOf<K>> {
    const when = at();
    const write = () =>
      deps.store.transaction(async (repos) => {
        const won = await repos.chargeAttempts.settle(attempt.id, settledAs(outcome, attempt, when.toISOString()));
        if (!won) return;
        if (outcome.status === 'SUCCEEDED') await booking.succeeded(repos, attempt, outcome, when);
        else if (outcome.status === 'DECLINED') await booking.declined?.(repos, attempt, outcome, when);
      });
    const moved = outcome.status === 'SUCCEEDED' && attempt.amountMinor > 0;
    // Writing down money that moved is tried again at once (a deadlock or a busy database passes);
    // the conditional update makes a repeat harmless.
    for (let tries = 1; ; tries++) {
      try {
        await write();
        break;
      } catch (err) {
        if (!moved) throw err;
        if (tries < 3) continue;
        // Still failing: the attempt stays open and the reconciler books it later. The caller says
        // "being confirmed", which is true; nothing is charged again.
        deps.onBookingFailure?.(err, attempt);
        return attempt;
      }
    }
    // The same key is the same attempt, of the same kind.
    return ((await deps.store.chargeAttempts.findByKey(attempt.key)) as AttemptOf<K> | undefined) ?? attempt;
  }

  return {
    /** Records the attempt, committed; a key recorded before returns that earlier attempt instead. */
    record: <K extends AttemptKind>(attempt: AttemptOf<K>) => deps.store.chargeAttempts.record(attempt),
    findByKey: (key: string) => deps.store.chargeAttempts.findByKey(key),
    /** Keeps the processor's id of an open attempt's browser session, so every later lookup asks about that one. */
    noteReference: (attempt: AnyAttempt, reference: string) =>
      deps.store.chargeAttempts.noteReference(attempt.id, reference),
    move,
    /**
     * Asks again about an attempt recorded earlier (a client's retry). It is marked asked first: the
     * reconciler, which voids what the gateway does not know, leaves it alone for its grace period
     * from now, so it cannot void the attempt while this request may still be on its way, and the
     * money it moves is booked under it.
     */
    async moveAgain(attempt: AnyAttempt, request: Parameters<typeof move>[1]): Promise<Outcome> {
      await deps.store.chargeAttempts.markAsked(attempt.id, at().toISOString());
      return move(attempt, request);
    },
    settle,
    /**
     * Cancels the payment a decline left held at the processor for the customer's authentication,
     * where no page will ask the customer for it (a vendor's charge of a stored card): left open, it
     * could still be completed later, outside any attempt. Best effort: the attempt is settled already.
     */
    async releaseHeld(attempt: AnyAttempt, outcome: Outcome): Promise<void> {
      if (outcome.status !== 'DECLINED' || outcome.code !== 'authentication_required' || !outcome.reference) return;
      const reference = outcome.reference;
      await ask(() => deps.gateways[attempt.scope.environment].cancelPending(reference));
    },

    /** Asks the gateway what became of an open attempt, and settles it if the gateway knows. */
    async reconcile<K extends AttemptKind>(attempt: AttemptOf<K>, booking: Booking<K>): Promise<AttemptOf<K>> {
      const gateway = deps.gateways[attempt.scope.environment];
      const found =
        attempt.kind === 'REFUND'
          ? await ask(() => gateway.lookupRefund(attempt.id, booking.lookupHint?.(attempt))).then((r) =>
              r.status === 'NOT_FOUND' ? r : refundAsOutcome(r),
            )
          : await ask(() => gateway.lookupCharge(attempt.id, attempt.gatewayReference));
      if (found.status === 'NOT_FOUND') return settle(attempt, { status: 'VOIDED' }, booking);
      if (found.status === 'UNKNOWN') {
        const old = at().getTime() - Date.parse(attempt.createdAt) > UNRESOLVED_AFTER_MS;
        return old ? settle(attempt, { status: 'UNRESOLVED' }, booking) : attempt;
      }
      return settle(attempt, found, booking);
    },
  };
}

export type ChargeProtocol = ReturnType<typeof chargeProtocol>;

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
  protocol: ChargeProtocol;
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
