import { isPayment } from '../payments/index.ts';
import type { Environment, LedgerEntry, Transaction } from '../model.ts';
import type { AnyAttempt, ChargeAttempt, Repositories } from '../ports.ts';
import type { ProcessorEventDeps } from './processor-event-model.ts';

/** Not acted on yet: the worker tries it again after a pause (the payment is not booked yet, the processor was not reached). */
export class NotYet extends Error {}

export const isOpen = (attempt: AnyAttempt) => attempt.status === 'PENDING' || attempt.status === 'UNKNOWN';

/** The attempt an event names, if it is this opentill's and of the event's environment. */
export async function attemptOf(
  deps: Pick<ProcessorEventDeps, 'store'>,
  environment: Environment,
  id: string,
): Promise<ChargeAttempt | undefined> {
  const attempt = await deps.store.chargeAttempts.findById(id);
  return attempt?.scope.environment === environment ? attempt : undefined;
}

/** The payment an event is about, in the locked transaction; not booked yet is tried again later. */
export async function paymentIn(repos: Repositories, transactionId: string, reference: string): Promise<LedgerEntry> {
  const payment = await repos.entries.findByExternalId(transactionId, reference);
  if (!payment || !isPayment(payment)) throw new NotYet(`payment ${reference} of ${transactionId} is not booked yet`);
  return payment;
}

/** Locks the transaction an attempt belongs to; missing means its purchase is not booked yet. */
export async function lockOf(
  repos: Repositories,
  attempt: ChargeAttempt & { transactionId: string },
): Promise<Transaction> {
  const transaction = await repos.transactions.lock(attempt.scope, attempt.transactionId);
  if (!transaction) throw new NotYet(`transaction ${attempt.transactionId} is not booked yet`);
  return transaction;
}
