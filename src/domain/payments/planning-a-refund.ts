import { invalidInput, invalidState, notFound } from '../errors.ts';
import { isPayment } from './ledger.ts';
import type { LedgerEntry, Transaction } from '../model.ts';
import { formatMinor, normalizeCurrency, toMinor } from '../money/index.ts';
import { latestRefundable, reversalState, type ReversalState } from './reversal-state.ts';

/** What a client asks: all that is left of the latest payment (nothing given), or an amount of it or of another payment. */
export interface RefundAsked {
  /** Gross, in the transaction's currency (a decimal number, as the API takes amounts). */
  amount?: number | string | undefined;
  /** When given, must be the payment's currency. */
  currency?: string | undefined;
  /** The payment to refund (a ledger entry id); the latest with something left by default. */
  entryId?: string | undefined;
  /** Why, kept with the refund and shown in the panel and the admin tool. */
  reason?: string | undefined;
}

/** At most this many characters of a reason are kept. */
export const MAX_REASON_LENGTH = 500;

/**
 * What a refund with nothing named would refund now: the latest payment with something left, unless
 * the transaction has no payment yet or is refunded (the original API's call: a refunded
 * subscription's earlier periods stay paid). The API, the panel and the admin tool all ask this.
 */
export function refundableNow(transaction: Transaction, entries: readonly LedgerEntry[]): ReversalState | undefined {
  if (transaction.status === 'TRANSACTION_STATUS_PENDING' || transaction.status === 'TRANSACTION_STATUS_REFUNDED')
    return undefined;
  return latestRefundable(entries);
}

/**
 * The payment and amount a request refunds, checked against the ledger as it is now (under the row lock).
 * Without a payment named, the latest with something left, as long as the transaction is not refunded
 * (the original API's call: a refunded subscription's earlier periods stay paid). Refused: a payment that
 * is not one or has nothing left, an amount of zero, more than is left, or in another currency.
 */
export function planRefund(
  entries: readonly LedgerEntry[],
  request: RefundAsked,
  transaction: Transaction,
): { state: ReversalState; amountMinor: number } {
  const { id, status } = transaction;
  const payment = request.entryId === undefined ? undefined : entries.find((e) => e.id === request.entryId);
  if (request.entryId !== undefined && (!payment || !isPayment(payment)))
    throw notFound(`Payment ${request.entryId} of transaction ${id}`);
  const state = payment ? reversalState(entries, payment) : refundableNow(transaction, entries);
  if (!state || state.remainingMinor <= 0) {
    if (!payment && status === 'TRANSACTION_STATUS_REFUNDED')
      throw invalidState(`Transaction ${id} is already refunded (status ${status}).`);
    throw invalidState(`Transaction ${id} (status ${status}) has no payment left to refund.`);
  }
  const currency = state.payment.currency;
  if (request.currency !== undefined && normalizeCurrency(request.currency) !== currency) {
    throw invalidInput(`The payment is in ${currency}; a refund of it is in ${currency} too, not ${request.currency}.`);
  }
  const amountMinor = request.amount === undefined ? state.remainingMinor : toMinor(request.amount, currency);
  if (amountMinor <= 0) throw invalidInput('A refund must be of more than zero.');
  if (amountMinor > state.remainingMinor) {
    throw invalidInput(
      `${request.amount} ${currency} is more than is left to refund of this payment: at most ${formatMinor(state.remainingMinor, currency)} ${currency}.`,
    );
  }
  return { state, amountMinor };
}
