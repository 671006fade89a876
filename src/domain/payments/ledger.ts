import { isoString } from '../clock.ts';
import { newId } from '../ids.ts';
import type { EntryType, Environment, LedgerEntry, Transaction } from '../model.ts';
import { platformFeeMinor, type ExchangeRates, type PlatformFee } from '../money/index.ts';

export type NewEntry = LedgerEntry & { vendorId: string; environment: Environment; description: string | null };

/**
 * A payment entry: what the customer paid, the tax in it, and what the vendor keeps (its income): the
 * net less the processor's fee and the platform's (serviceFee), each fixed here, once, for good.
 */
export function paymentEntry(args: {
  type: Extract<EntryType, 'SUBSCRIPTION_PAYMENT' | 'VAULTED_PAYMENT' | 'ONETIME_PAYMENT'>;
  transaction: Pick<Transaction, 'id' | 'vendorId' | 'environment' | 'country'>;
  /** What was priced: the entry's amounts are the quote's, never worked out again. */
  quote: PricedAmounts;
  /** The processor's answer: its reference for the money and the fee it kept. */
  paid: { reference: string; feeMinor: number };
  provider: string;
  /** The platform's fee in force for the vendor, and the rate table its fixed part is converted with. */
  fee: { platformFee: PlatformFee; rates: ExchangeRates };
  at: Date;
  periodStart?: string | null;
  description?: string | null;
}): NewEntry {
  const { quote, paid } = args;
  const serviceFeeMinor = platformFeeMinor(
    args.fee.platformFee,
    { currency: quote.currency, netMinor: quote.netMinor, processorFeeMinor: paid.feeMinor },
    args.fee.rates,
  );
  return {
    id: newId('entry', args.at.getTime()),
    transactionId: args.transaction.id,
    vendorId: args.transaction.vendorId,
    environment: args.transaction.environment,
    type: args.type,
    createdAt: isoString(args.at),
    currency: quote.currency,
    amountTotalMinor: quote.netMinor + quote.taxMinor,
    taxMinor: quote.taxMinor,
    netMinor: quote.netMinor,
    taxRate: quote.taxRate,
    incomeMinor: quote.netMinor - paid.feeMinor - serviceFeeMinor,
    incomeCurrency: quote.currency,
    affiliateIncomeMinor: 0,
    serviceFeeMinor,
    transactionFeeMinor: paid.feeMinor,
    reversesEntryId: null,
    periodStart: args.periodStart ?? null,
    hashId: newId('hash', args.at.getTime()),
    externalId: paid.reference,
    paymentProvider: args.provider,
    country: args.transaction.country,
    description: args.description ?? null,
    discountMinor: quote.discountMinor ?? 0,
  };
}

/** The amounts of a payment as priced (a purchase's, a renewal's or a stored card's quote). */
export interface PricedAmounts {
  currency: string;
  netMinor: number;
  taxMinor: number;
  taxRate: string;
  /** What a coupon took off the net (docs/decisions.md §38). */
  discountMinor?: number;
}

/** The entry that reverses a payment: the same amounts, negated, pointing at the payment. */
export function reversalEntry(
  payment: LedgerEntry,
  args: { type: EntryType; vendorId: string; environment: Environment; externalId: string | null; at: Date },
): NewEntry {
  return {
    ...payment,
    id: newId('entry', args.at.getTime()),
    vendorId: args.vendorId,
    environment: args.environment,
    type: args.type,
    createdAt: args.at.toISOString(),
    // A credit note reverses what was charged; the payment's discount is not granted again (docs/decisions.md §38).
    discountMinor: 0,
    amountTotalMinor: -payment.amountTotalMinor,
    taxMinor: -payment.taxMinor,
    netMinor: -payment.netMinor,
    incomeMinor: -payment.incomeMinor,
    affiliateIncomeMinor: -payment.affiliateIncomeMinor,
    serviceFeeMinor: -payment.serviceFeeMinor,
    transactionFeeMinor: -payment.transactionFeeMinor,
    reversesEntryId: payment.id,
    periodStart: null,
    hashId: newId('hash', args.at.getTime()),
    externalId: args.externalId,
    description: null,
  };
}

export function isPayment(entry: LedgerEntry): boolean {
  return entry.type === 'ONETIME_PAYMENT' || entry.type === 'SUBSCRIPTION_PAYMENT' || entry.type === 'VAULTED_PAYMENT';
}

/** The latest payment that no refund or chargeback has reversed yet. */
export function latestUnreversedPayment(entries: readonly LedgerEntry[]): LedgerEntry | undefined {
  const reversed = new Set(entries.map((e) => e.reversesEntryId).filter((id): id is string => id !== null));
  return [...entries].reverse().find((e) => isPayment(e) && !reversed.has(e.id));
}
