import type { Booking, ChargeProtocol } from './charge-protocol.ts';
import type { EmailRecorder } from './customer-emails.ts';
import { refundEmail } from './refunds.ts';
import type { Clock } from './clock.ts';
import type { PaymentGateway, ProcessorEvent } from './gateway.ts';
import { isPayment, reversalEntry, type NewEntry } from './ledger.ts';
import type { EntryType, Environment, LedgerEntry, Transaction } from './model.ts';
import type { ChargeAttempt, Repositories, Store, StoredProcessorEvent, TransactionPatch } from './ports.ts';

/**
 * What the payment processor tells opentill on its own (DECISIONS.md, money safety and chargebacks;
 * docs/decisions.md §10a): a payment the customer completed in the browser, a refund made in the
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
  bookings: { PURCHASE: Booking; VAULTED: Booking; REFUND: Booking };
  /** A renewal the bank held for the customer's authentication was paid after all: billing books it (once). */
  authenticatedRenewal(attempt: ChargeAttempt, reference: string): Promise<void>;
  /** Queues the customer's e-mail of a refund made at the processor. */
  emails?: EmailRecorder | undefined;
}

export type ReceiveResult =
  | { status: 'STORED' | 'DUPLICATE' }
  /** The signature is missing, wrong or too old: nothing was stored. */
  | { status: 'INVALID'; message: string }
  /** This environment's payment processor sends no events of this provider. */
  | { status: 'NOT_FOUND'; message: string };

/** What one run did: events acted on, events that failed (tried again later), events that were not opentill's. */
export interface ProcessorEventReport {
  processed: number;
  failed: number;
  ignored: number;
}

/** The first retry waits this long, each next one twice as long, up to an hour. */
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3600_000;

export const retryDelayMs = (tries: number) => Math.min(FIRST_RETRY_MS * 2 ** Math.min(tries, 20), MAX_RETRY_MS);

/** An error as the event's record keeps it: short, and never an e-mail address (no payload is ever put in one). */
export function shortError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/[^\s@]+@[^\s@]+/g, '[e-mail]').slice(0, 300) || 'failed';
}

/** Not acted on yet: the worker tries it again after a pause (the payment is not booked yet, the processor was not reached). */
class NotYet extends Error {}

const REVERSAL_TYPE: Record<Transaction['type'], EntryType> = {
  ONETIME: 'ONETIME_PAYMENT_REFUND',
  SUBSCRIPTION: 'SUBSCRIPTION_REFUND',
  // As for refunds through the API (src/domain/refunds.ts): a vaulted charge is refunded like a one-time payment.
  VAULTED: 'ONETIME_PAYMENT_REFUND',
};

const isOpen = (attempt: ChargeAttempt) => attempt.status === 'PENDING' || attempt.status === 'UNKNOWN';

/** `value` × `amount` / `total`, rounded half away from zero, in exact integer arithmetic. */
function scale(value: number, amount: number, total: number): number {
  const magnitude = BigInt(Math.abs(value));
  const scaled = (2n * magnitude * BigInt(amount) + BigInt(total)) / (2n * BigInt(total));
  return value < 0 ? -Number(scaled) : Number(scaled);
}

/**
 * The part of a payment that `amountMinor` of its total is (a partial refund or dispute): tax, fees
 * and income scaled in exact integers, the net what is left of the amount after the tax, so the
 * entry still adds up. The whole payment when the amount is all of it (or more).
 */
export function portionOf(payment: LedgerEntry, amountMinor: number): LedgerEntry {
  const total = payment.amountTotalMinor;
  if (amountMinor >= total || total <= 0) return payment;
  const taxMinor = scale(payment.taxMinor, amountMinor, total);
  const netMinor = amountMinor - taxMinor;
  return {
    ...payment,
    amountTotalMinor: amountMinor,
    taxMinor,
    netMinor,
    incomeMinor: netMinor - scale(payment.netMinor - payment.incomeMinor, amountMinor, total),
    affiliateIncomeMinor: scale(payment.affiliateIncomeMinor, amountMinor, total),
    serviceFeeMinor: scale(payment.serviceFeeMinor, amountMinor, total),
    transactionFeeMinor: scale(payment.transactionFeeMinor, amountMinor, total),
  };
}

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

  const reversedIn = async (repos: Repositories, payment: LedgerEntry) =>
    (await repos.entries.listForTransaction(payment.transactionId)).some((e) => e.reversesEntryId === payment.id);

  /** Locks the transaction an attempt belongs to; missing means its purchase is not booked yet. */
  async function lockOf(repos: Repositories, attempt: ChargeAttempt & { transactionId: string }): Promise<Transaction> {
    const transaction = await repos.transactions.lock(attempt.scope, attempt.transactionId);
    if (!transaction) throw new NotYet(`transaction ${attempt.transactionId} is not booked yet`);
    return transaction;
  }

  /** The payment or card setup of an attempt changed: ask the processor where it stands and settle. */
  async function onPayment(environment: Environment, event: Extract<ProcessorEvent, { kind: 'payment' }>): Promise<'processed' | 'ignored'> {
    const attempt = await attemptOf(environment, event.attemptId);
    if (!attempt) return 'ignored';
    const gateway = deps.gateways[environment];
    if (attempt.kind === 'PURCHASE' || attempt.kind === 'VAULTED') {
      if (!isOpen(attempt)) return 'processed';
      const found = await gateway.lookupCharge(attempt.id, event.reference);
      if (found.status === 'UNKNOWN') return 'processed';
      const settled = await deps.protocol.settle(attempt, found.status === 'NOT_FOUND' ? { status: 'VOIDED' } : found, deps.bookings[attempt.kind]);
      if (found.status === 'SUCCEEDED' && isOpen(settled)) throw new NotYet(`attempt ${attempt.id} was paid but could not be booked yet`);
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

  /** A refund of a payment opentill did not ask for (the processor's dashboard): one reversal entry, as an API refund writes. */
  async function refundAtProcessor(
    paid: ChargeAttempt & { transactionId: string },
    paymentReference: string,
    refund: { reference: string; amountMinor: number; currency: string },
  ) {
    await deps.store.transaction(async (repos) => {
      // The row first, then the invoice counter (inside the entry insert): the order billing and refunds use.
      const transaction = await lockOf(repos, paid);
      if (await repos.entries.findByExternalId(transaction.id, refund.reference)) return;
      // A refund through the API may be this very refund: once it is settled, this one finds it.
      if (await repos.chargeAttempts.findOpenFor(transaction.id, 'REFUND')) throw new NotYet(`a refund of ${transaction.id} is being confirmed`);
      const payment = await paymentIn(repos, transaction.id, paymentReference);
      // A payment is reversed once (refund or chargeback); the ledger has no second reversal of it.
      if (await reversedIn(repos, payment)) return;
      if (refund.currency.toUpperCase() !== payment.currency.toUpperCase()) {
        throw new Error(`refund ${refund.reference} is in ${refund.currency}, its payment in ${payment.currency}`);
      }
      if (refund.amountMinor <= 0) return;
      const at = deps.clock.now(paid.scope);
      const entry = reversalEntry(portionOf(payment, refund.amountMinor), {
        type: REVERSAL_TYPE[transaction.type],
        vendorId: paid.scope.vendorId,
        environment: paid.scope.environment,
        externalId: refund.reference,
        at,
      });
      await repos.entries.insert(entry);
      // A vaulted method stays usable after one of its charges is refunded (as through the API).
      const patch: TransactionPatch = transaction.type === 'VAULTED' ? {} : { status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
      await repos.transactions.update(paid.scope, transaction.id, patch, { flag: 'CHANGED_STATUS_REFUNDED', at: entry.createdAt });
      await deps.emails?.record(repos, [refundEmail(paid.scope, transaction.id, entry.id)]);
    });
  }

  async function onRefunds(environment: Environment, event: Extract<ProcessorEvent, { kind: 'refunds' }>): Promise<'processed' | 'ignored'> {
    let acted = false;
    for (const refund of event.refunds) {
      if (refund.refundAttemptId !== null) {
        const own = await attemptOf(environment, refund.refundAttemptId);
        if (own?.kind === 'REFUND') {
          acted = true;
          if (isOpen(own)) {
            // opentill's own refund, whose answer the API call may still be waiting for: settled once, whoever is first.
            const settled = await deps.protocol.settle(own, { status: 'SUCCEEDED', reference: refund.reference, feeMinor: 0 }, deps.bookings.REFUND);
            if (isOpen(settled)) throw new NotYet(`refund ${own.id} was made but could not be booked yet`);
            continue;
          }
          if (own.status === 'SUCCEEDED') continue;
          // Settled as failed here, yet the processor made it: the money moved, so it is booked as a refund made there.
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
   * A dispute opened: the processor took the payment's money back. A CHARGEBACK entry (its external
   * id the dispute's), the transaction refunded and, a subscription or vaulted method, cancelled by
   * the platform. Returns the chargeback entry (earlier or new), or undefined when the payment was
   * already reversed.
   */
  async function chargeBack(
    repos: Repositories,
    paid: ChargeAttempt,
    transaction: Transaction,
    event: Extract<ProcessorEvent, { kind: 'dispute' }>,
  ): Promise<LedgerEntry | undefined> {
    const earlier = await repos.entries.findByExternalId(transaction.id, event.disputeReference);
    if (earlier) return earlier;
    const payment = await paymentIn(repos, transaction.id, event.paymentReference);
    if (await reversedIn(repos, payment)) return undefined;
    if (event.amountMinor <= 0) return undefined;
    const entry: NewEntry = reversalEntry(portionOf(payment, event.amountMinor), {
      type: 'CHARGEBACK',
      vendorId: paid.scope.vendorId,
      environment: paid.scope.environment,
      externalId: event.disputeReference,
      at: deps.clock.now(paid.scope),
    });
    await repos.entries.insert(entry);
    const patch: TransactionPatch = { status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
    if (transaction.type !== 'ONETIME') patch.whoCanceled = transaction.whoCanceled ?? 'TRANSACTION_CLOUD_ADMIN';
    await repos.transactions.update(paid.scope, transaction.id, patch, { flag: 'CHANGED_STATUS_REFUNDED', at: entry.createdAt });
    return entry;
  }

  async function onDispute(environment: Environment, event: Extract<ProcessorEvent, { kind: 'dispute' }>): Promise<'processed' | 'ignored'> {
    const paid = await attemptOf(environment, event.attemptId);
    if (paid?.transactionId == null) return 'ignored';
    const attempt = { ...paid, transactionId: paid.transactionId };
    await deps.store.transaction(async (repos) => {
      const transaction = await lockOf(repos, attempt);
      // Whatever the outcome, the dispute was opened first (its events may come in any order).
      const chargeback = await chargeBack(repos, paid, transaction, event);
      if (event.outcome !== 'won' || !chargeback) return;
      const wonId = `${event.disputeReference}:won`;
      if (await repos.entries.findByExternalId(transaction.id, wonId)) return;
      // The money came back: the chargeback reversed. The status stays (the customer is not re-subscribed).
      const now = deps.clock.now(paid.scope).getTime();
      const entry = reversalEntry(chargeback, {
        type: 'CHARGEBACK',
        vendorId: paid.scope.vendorId,
        environment: paid.scope.environment,
        externalId: wonId,
        // After the chargeback in the ledger's order, even when both are written in the same millisecond.
        at: new Date(Math.max(now, Date.parse(chargeback.createdAt) + 1)),
      });
      await repos.entries.insert(entry);
      await repos.transactions.update(paid.scope, transaction.id, {}, { flag: 'CHANGED_STATUS_REFUNDED', at: entry.createdAt });
    });
    return 'processed';
  }

  async function act(stored: StoredProcessorEvent): Promise<'processed' | 'ignored'> {
    const gateway = deps.gateways[stored.environment];
    if (!gateway.translateEvent || gateway.provider.toLowerCase() !== stored.provider.toLowerCase()) {
      throw new NotYet(`the ${stored.environment} payment processor does not read ${stored.provider} events`);
    }
    const event = await gateway.translateEvent({ id: stored.eventId, type: stored.type, createdAt: stored.createdAt, payload: stored.payload });
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
    async receive(environment: Environment, provider: string, rawBody: Buffer, signature: string | undefined): Promise<ReceiveResult> {
      const gateway = deps.gateways[environment];
      if (!gateway.verifyEvent || gateway.provider.toLowerCase() !== provider.toLowerCase()) {
        return { status: 'NOT_FOUND', message: `The ${environment} payment processor sends no ${provider} events here.` };
      }
      const check = gateway.verifyEvent(rawBody, signature);
      if (check.status !== 'OK') return check;
      const { event } = check;
      // No store keeps U+0000 in text; no processor's JSON carries it unescaped.
      if (event.id === '' || [event.id, event.type, event.createdAt, event.payload].some((text) => text.includes('\u0000'))) {
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
      const report: ProcessorEventReport = { processed: 0, failed: 0, ignored: 0 };
      for (const stored of await deps.store.processorEvents.listDue(realNow().toISOString(), limit)) {
        try {
          const result = await act(stored);
          await deps.store.processorEvents.markProcessed(stored.id, realNow().toISOString());
          report[result]++;
        } catch (err) {
          const next = new Date(realNow().getTime() + retryDelayMs(stored.tries));
          await deps.store.processorEvents.markFailed(stored.id, shortError(err), next.toISOString());
          report.failed++;
        }
      }
      return report;
    },
  };
}

export type ProcessorEventService = ReturnType<typeof processorEventService>;
