import type {
  ChargeFrequency,
  LedgerEntry,
  Transaction,
  TransactionStatus,
  TransactionType,
} from '../../../domain/model.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import { refundableNow } from '../../../domain/payments/index.ts';

export { entryLabel, entryWord, ENTRY_WORDS } from '../../../markup/entry-words.ts';

/** Plain words for every enum the panel shows: vendors read "Monthly", not MONTHLY. */
export const TYPE_WORDS: Record<TransactionType, string> = {
  ONETIME: 'One-time',
  SUBSCRIPTION: 'Subscription',
  VAULTED: 'Saved card',
};

export const FREQUENCY_WORDS: Record<ChargeFrequency, string> = {
  DAILY: 'Daily',
  WEEKLY: 'Weekly',
  MONTHLY: 'Monthly',
  HALF_YEARLY: 'Every six months',
  YEARLY: 'Yearly',
  UNKNOWN: 'Unknown',
};

export const STATUS_WORDS: Record<TransactionStatus, string> = {
  TRANSACTION_STATUS_PENDING: 'Pending',
  TRANSACTION_STATUS_REFUNDED: 'Refunded',
  ONE_TIME_PAYMENT_STATUS_PAID: 'Paid',
  SUBSCRIPTION_STATUS_ACTIVE: 'Active',
  SUBSCRIPTION_STATUS_ACTIVE_TRIAL: 'Trial',
  SUBSCRIPTION_STATUS_CANCELLED_PENDING: 'Cancelled at period end',
  SUBSCRIPTION_STATUS_CANCELLED: 'Cancelled',
  VAULTED_STATUS_ACTIVE: 'Active',
  VAULTED_STATUS_INACTIVE: 'Inactive',
};

/** The status filter's choices: a word may stand for several statuses. */
export const STATUS_FILTERS: Record<string, { label: string; statuses: TransactionStatus[] }> = {
  paid: { label: 'Paid', statuses: ['ONE_TIME_PAYMENT_STATUS_PAID'] },
  active: { label: 'Active', statuses: ['SUBSCRIPTION_STATUS_ACTIVE', 'VAULTED_STATUS_ACTIVE'] },
  trial: { label: 'Trial', statuses: ['SUBSCRIPTION_STATUS_ACTIVE_TRIAL'] },
  cancelled: {
    label: 'Cancelled',
    statuses: ['SUBSCRIPTION_STATUS_CANCELLED', 'SUBSCRIPTION_STATUS_CANCELLED_PENDING', 'VAULTED_STATUS_INACTIVE'],
  },
  refunded: { label: 'Refunded', statuses: ['TRANSACTION_STATUS_REFUNDED'] },
  pending: { label: 'Pending', statuses: ['TRANSACTION_STATUS_PENDING'] },
};

export const statusWord = (status: string) => STATUS_WORDS[status as TransactionStatus] ?? status;
export const typeWord = (type: string) => TYPE_WORDS[type as TransactionType] ?? type;
export const frequencyWord = (frequency: string) => FREQUENCY_WORDS[frequency as ChargeFrequency] ?? frequency;

/** What the notice after a refund says: what is left to refund now, from the ledger as it is. */
export function refundedNotice(transaction: Transaction, entries: readonly LedgerEntry[], locale: string): string {
  const left = refundableNow(transaction, entries);
  if (!left) return 'Refunded. Nothing is left to refund.';
  return `Refunded. ${formatForBuyer(left.remainingMinor, left.payment.currency, locale)} of the payment of ${left.payment.createdAt.slice(0, 10)} is left to refund.`;
}
