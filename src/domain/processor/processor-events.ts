import { bookingFor, type Bookings, type ChargeProtocol } from '../payments/index.ts';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { PaymentGateway, ProcessorEvent } from '../payments/index.ts';
import { isPayment } from '../payments/index.ts';
import type { Environment, LedgerEntry, Transaction } from '../model.ts';
import type { ReversalService } from '../payments/index.ts';
import type { AnyAttempt, ChargeAttempt, Repositories, Store, StoredProcessorEvent } from '../ports.ts';

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

/** The first retry waits this long, each next one twice as long, up to an hour. */
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3600_000;

/**
 * A reversal the ledger refuses (more than is left of the payment) is tried again this many times, about
 * six hours: the event that makes it fit (a dispute won, a refund failed) may come later than it. Then it
 * is set aside, its refusal kept for an operator.
 */
export const REFUSED_TRIES = 12;

export const retryDelayMs = (tries: number) => Math.min(FIRST_RETRY_MS * 2 ** Math.min(tries, 20), MAX_RETRY_MS);

/** An error as the event's record keeps it: short, and never an e-mail address (no payload is ever put in one). */
export function shortError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/[^\s@]+@[^\s@]+/g, '[e-mail]').slice(0, 300) || 'failed';
}

/** Not acted on yet: the worker tries it again after a pause (the payment is not booked yet, the processor was not reached). */
class NotYet extends Error {}

const isOpen = (attempt: AnyAttempt) => attempt.status === 'PENDING' || attempt.status === 'UNKNOWN';

export function processorEventService(deps: ProcessorEventDeps) {
  const realNow = () => deps.clock.now();

  /** The attempt an event names, if it is this opentill's and of the event's environment. */
  async function attemptOf(environment: Environment, id: string): Promise<ChargeAttempt | undefined> {
    const attempt = await deps.store.chargeAttempts.findById(id);
    return attempt?.scope.environment === environment ? attempt : undefined;
  }

  /** The payment an event is about, in the locked transaction; not booked yet is tried again later. */
  async function paymentIn(repos: Repositories, transactionId: string, reference: string): Promise<LedgerEntry> {
    const payment = await repos.entries.findByExternalId(transactionId, reference);
    if (!payment || !isPayment(payment)) throw new NotYet(`payment ${reference} of ${transactionId} is not booked yet`);
    return payment;
  }

  /** Locks the transaction an attempt belongs to; missing means its purchase is not booked yet. */
  async function lockOf(repos: Repositories, attempt: ChargeAttempt & { transactionId: string }): Promise<Transaction> {
    const transaction = await repos.transactions.lock(attempt.scope, attempt.transactionId);
    if (!transaction) throw new NotYet(`transaction ${attempt.transactionId} is not booked yet`);
    return transaction;
  }

  /** The payment or card setup of an attempt changed: ask the processor where it stands and settle. */
  async function onPayment(
    environment: Environment,
    event: Extract<ProcessorEvent, { kind: 'payment' }>,
  ): Promise<'processed' | 'ignored'> {
    const attempt = await attemptOf(environment, event.attemptId);
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

  /**
   * A refund of a payment opentill did not ask for (the processor's dashboard, another integration),
   * all or part of it, booked once by its id through the reversal module, as a refund through the API
   * is; or, when it failed after it was booked, its booking undone.
   */
  async function refundAtProcessor(
    paid: ChargeAttempt & { transactionId: string },
    paymentReference: string,
    refund: { reference: string; amountMinor: number; currency: string; failed: boolean },
  ) {
    await deps.store.transaction(async (repos) => {
      // The row first, then the invoice counter (inside the entry insert): the order billing and refunds use.
      const transaction = await lockOf(repos, paid);
      const booked = await repos.entries.findByExternalId(transaction.id, refund.reference);
      const at = deps.clock.now(paid.scope);
      if (refund.failed) {
        // Failed before it was booked: it took nothing back. Failed after: the money is the vendor's again.
        if (booked)
          await deps.reversals.undo(repos, {
            scope: paid.scope,
            transaction,
            reversal: booked,
            externalId: `${refund.reference}:failed`,
            at,
          });
        return;
      }
      if (booked) return;
      // A refund through the API may be this very refund: once it is settled, this one finds it.
      if (await repos.chargeAttempts.findOpenFor(transaction.id, 'REFUND'))
        throw new NotYet(`a refund of ${transaction.id} is being confirmed`);
      const payment = await paymentIn(repos, transaction.id, paymentReference);
      if (refund.currency.toUpperCase() !== payment.currency.toUpperCase()) {
        throw new Error(`refund ${refund.reference} is in ${refund.currency}, its payment in ${payment.currency}`);
      }
      if (refund.amountMinor <= 0) return;
      await deps.reversals.reverse(repos, {
        scope: paid.scope,
        transaction,
        payment,
        kind: 'REFUND',
        amountMinor: refund.amountMinor,
        externalId: refund.reference,
        at,
      });
    });
  }

  async function onRefunds(
    environment: Environment,
    event: Extract<ProcessorEvent, { kind: 'refunds' }>,
  ): Promise<'processed' | 'ignored'> {
    let acted = false;
    // Failed ones first: a refund that failed gives back room a newer one in the same list may need.
    for (const refund of [...event.refunds].sort((a, b) => Number(b.failed) - Number(a.failed))) {
      if (refund.refundAttemptId !== null) {
        const own = await attemptOf(environment, refund.refundAttemptId);
        if (own?.kind === 'REFUND') {
          acted = true;
          if (isOpen(own)) {
            // opentill's own refund, whose answer the API call may still be waiting for: settled once, whoever is first.
            const outcome = refund.failed
              ? ({
                  status: 'DECLINED',
                  code: 'refund_refused',
                  message: 'The payment provider could not make the refund.',
                  permanent: true,
                } as const)
              : ({ status: 'SUCCEEDED', reference: refund.reference, feeMinor: 0 } as const);
            const settled = await deps.protocol.settle(own, outcome, deps.bookings.REFUND);
            if (isOpen(settled)) throw new NotYet(`refund ${own.id} was made but could not be booked yet`);
            continue;
          }
          if (own.status === 'SUCCEEDED' && !refund.failed) continue;
          // Settled as failed here, yet the processor made it (the money moved: booked as a refund made
          // there); or booked, and it failed since (the booking undone): both the processor's doing.
        }
      }
      const paid = await attemptOf(environment, event.attemptId);
      if (paid?.transactionId == null) continue;
      acted = true;
      await refundAtProcessor({ ...paid, transactionId: paid.transactionId }, event.paymentReference, refund);
    }
    return acted ? 'processed' : 'ignored';
  }

  /**
   * A dispute: the processor took (part of) the payment's money back, a CHARGEBACK entry booked once by
   * the dispute's id through the reversal module, whatever state the dispute is in now (its events may
   * come in any order); a dispute the vendor won gives it back, once.
   */
  async function onDispute(
    environment: Environment,
    event: Extract<ProcessorEvent, { kind: 'dispute' }>,
  ): Promise<'processed' | 'ignored'> {
    const paid = await attemptOf(environment, event.attemptId);
    if (paid?.transactionId == null) return 'ignored';
    const attempt = { ...paid, transactionId: paid.transactionId };
    await deps.store.transaction(async (repos) => {
      const transaction = await lockOf(repos, attempt);
      const at = deps.clock.now(paid.scope);
      let chargeback = await repos.entries.findByExternalId(transaction.id, event.disputeReference);
      if (!chargeback) {
        if (event.amountMinor <= 0) return;
        const payment = await paymentIn(repos, transaction.id, event.paymentReference);
        const reversal = {
          scope: paid.scope,
          transaction,
          payment,
          kind: 'CHARGEBACK',
          amountMinor: event.amountMinor,
          externalId: event.disputeReference,
          at,
        } as const;
        // Won before opentill heard of it: booked with its win, so a refund made meanwhile cannot stand in its way.
        chargeback = (
          await deps.reversals.reverse(
            repos,
            reversal,
            event.outcome === 'won' ? `${event.disputeReference}:won` : undefined,
          )
        ).entry;
      }
      if (event.outcome === 'won') {
        // The vendor sees the money come back; the status stays (reversals.ts).
        await deps.reversals.undo(repos, {
          scope: paid.scope,
          transaction,
          reversal: chargeback,
          externalId: `${event.disputeReference}:won`,
          at,
        });
      }
    });
    return 'processed';
  }

  async function act(stored: StoredProcessorEvent): Promise<'processed' | 'ignored'> {
    const gateway = deps.gateways[stored.environment];
    if (!gateway.translateEvent || gateway.provider.toLowerCase() !== stored.provider.toLowerCase()) {
      throw new NotYet(`the ${stored.environment} payment processor does not read ${stored.provider} events`);
    }
    const event = await gateway.translateEvent({
      id: stored.eventId,
      type: stored.type,
      createdAt: stored.createdAt,
      payload: stored.payload,
    });
    switch (event.kind) {
      case 'payment':
        return onPayment(stored.environment, event);
      case 'refunds':
        return onRefunds(stored.environment, event);
      case 'dispute':
        return onDispute(stored.environment, event);
      case 'ignored':
        return 'ignored';
    }
  }

  return {
    /**
     * An event as the processor delivered it: checked by the environment's gateway over the raw body
     * and stored once (a second delivery stores nothing new). Nothing is acted on here; the worker
     * does that (`runDue`), so the processor hears back at once.
     */
    async receive(
      environment: Environment,
      provider: string,
      rawBody: Buffer,
      signature: string | undefined,
    ): Promise<ReceiveResult> {
      const gateway = deps.gateways[environment];
      if (!gateway.verifyEvent || gateway.provider.toLowerCase() !== provider.toLowerCase()) {
        return {
          status: 'NOT_FOUND',
          message: `The ${environment} payment processor sends no ${provider} events here.`,
        };
      }
      const check = gateway.verifyEvent(rawBody, signature);
      if (check.status !== 'OK') return check;
      const { event } = check;
      // No store keeps U+0000 in text; no processor's JSON carries it unescaped.
      if (
        event.id === '' ||
        [event.id, event.type, event.createdAt, event.payload].some((text) => text.includes('\u0000'))
      ) {
        return { status: 'INVALID', message: 'The event is malformed.' };
      }
      const receivedAt = realNow().toISOString();
      const { fresh } = await deps.store.processorEvents.record({
        id: `${provider.toLowerCase()}:${environment}:${event.id}`,
        provider: provider.toLowerCase(),
        environment,
        eventId: event.id,
        type: event.type,
        createdAt: event.createdAt,
        payload: event.payload,
        receivedAt,
      });
      return { status: fresh ? 'STORED' : 'DUPLICATE' };
    },

    /**
     * Acts on up to `limit` stored events whose try is due, oldest processor time first (the billing
     * worker runs it). An event that fails is tried again after 30 s, 1 min, 2 min, ... up to an hour.
     */
    async runDue(limit = 100): Promise<ProcessorEventReport> {
      const report: ProcessorEventReport = { processed: 0, failed: 0, ignored: 0, refused: 0 };
      for (const stored of await deps.store.processorEvents.listDue(realNow().toISOString(), limit)) {
        try {
          const result = await act(stored);
          await deps.store.processorEvents.markProcessed(stored.id, realNow().toISOString());
          report[result]++;
        } catch (err) {
          const refused = err instanceof AppError && err.code === 'INVALID_STATE';
          if (refused && stored.tries + 1 >= REFUSED_TRIES) {
            await deps.store.processorEvents.markProcessed(stored.id, realNow().toISOString(), shortError(err));
          } else {
            const next = new Date(realNow().getTime() + retryDelayMs(stored.tries));
            await deps.store.processorEvents.markFailed(stored.id, shortError(err), next.toISOString());
          }
          report[refused ? 'refused' : 'failed']++;
        }
      }
      return report;
    },
  };
}

export type ProcessorEventService = ReturnType<typeof processorEventService>;
