import type { EntryType, LedgerEntry } from '../domain/model.ts';

/** Plain words for a ledger entry's type, shared by the pages and the documents (a statement's PDF). */
export const ENTRY_WORDS: Record<EntryType, string> = {
  ONETIME_PAYMENT: 'Payment',
  SUBSCRIPTION_PAYMENT: 'Subscription payment',
  VAULTED_PAYMENT: 'Saved-card charge',
  ONETIME_PAYMENT_REFUND: 'Refund',
  SUBSCRIPTION_REFUND: 'Refund',
  CHARGEBACK: 'Chargeback',
};

export const entryWord = (type: string) => ENTRY_WORDS[type as EntryType] ?? type;

/** An entry as the ledger tables name it: the undoing of a reversal (a dispute won, a refund that failed) says so. */
export function entryLabel(entry: Pick<LedgerEntry, 'type' | 'amountTotalMinor'>): string {
  if (entry.type === 'CHARGEBACK' && entry.amountTotalMinor > 0) return 'Dispute won: money back';
  if ((entry.type === 'ONETIME_PAYMENT_REFUND' || entry.type === 'SUBSCRIPTION_REFUND') && entry.amountTotalMinor > 0)
    return 'Refund failed: money back';
  return entryWord(entry.type);
}
