import type { LedgerEntry, Transaction } from '../domain/model.ts';
import { formatMinor, minorToNumber } from '../domain/money/index.ts';

/** Domain records in the API's wire shapes, with the field names of docs/decisions.md §8. */

function amounts(t: Transaction) {
  return {
    netPrice: minorToNumber(t.netMinor, t.currency),
    netPriceS: formatMinor(t.netMinor, t.currency),
    netPriceInUSD: minorToNumber(t.netUsdMinor, 'USD'),
    netPriceInUSDS: formatMinor(t.netUsdMinor, 'USD'),
    tax: minorToNumber(t.taxMinor, t.currency),
    taxS: formatMinor(t.taxMinor, t.currency),
    currency: t.currency,
  };
}

function head(t: Transaction) {
  return {
    id: t.id,
    createDate: t.createdAt,
    email: t.email,
  };
}

function body(t: Transaction) {
  return {
    productId: t.productId,
    productName: t.productName,
    transactionType: t.type,
    transactionStatus: t.status,
    chargeFrequency: t.chargeFrequency,
    country: t.country,
    lastCharge: t.lastCharge,
  };
}

/** nextCharge is absent for one-time transactions (and null once nothing is due): docs/decisions.md §6. */
const nextChargeOf = (t: Transaction) => (t.type === 'ONETIME' ? {} : { nextCharge: t.nextCharge });

/** opentill's own `pause` of a subscription (docs/decisions.md §41): its latest pause, or null; absent for others. */
export const pauseOf = (t: Pick<Transaction, 'pause'>) =>
  t.pause ? { startsAt: t.pause.startsAt, resumesAt: t.pause.resumesAt } : null;
const pauseField = (t: Transaction) => (t.type === 'SUBSCRIPTION' ? { pause: pauseOf(t) } : {});

/** Element of GET /v1/transactions/{email}. */
export function listedTransaction(t: Transaction) {
  return {
    ...head(t),
    assignedEmail: t.assignedEmail,
    ...body(t),
    ...nextChargeOf(t),
    payload: t.payload,
    whoCanceled: t.whoCanceled,
    ...amounts(t),
    quantity: t.quantity,
    ...pauseField(t),
  };
}

/** GET /v1/transaction/{id}: no nextCharge, with the ledger. */
export function transactionWithEntries(t: Transaction, entries: readonly LedgerEntry[]) {
  return {
    ...head(t),
    assignedEmail: t.assignedEmail,
    ...body(t),
    payload: t.payload,
    whoCanceled: t.whoCanceled,
    ...amounts(t),
    quantity: t.quantity,
    ...pauseField(t),
    entries: entries.map(entry),
  };
}

/** Responses of assign-email and update-payload: `assignEmail` instead of `assignedEmail`. */
export function updatedTransaction(t: Transaction) {
  return {
    ...head(t),
    assignEmail: t.assignedEmail,
    ...body(t),
    payload: t.payload,
    whoCanceled: t.whoCanceled,
    ...amounts(t),
  };
}

/** Element of GET /v1/changed-transactions, in both spellings clients read. */
export function changedTransaction(t: Transaction) {
  return {
    assignEmail: t.assignedEmail,
    assignedEmail: t.assignedEmail,
    changeStatus: t.changeFlag,
    changedStatus: t.changeFlag,
    chargeFrequency: t.chargeFrequency,
    country: t.country,
    createDate: t.createdAt,
    email: t.email,
    id: t.id,
    lastCharge: t.lastCharge,
    ...nextChargeOf(t),
    payload: t.payload,
    productId: t.productId,
    productName: t.productName,
    transactionStatus: t.status,
    transactionType: t.type,
    whoCanceled: t.whoCanceled,
  };
}

export function entry(e: LedgerEntry) {
  return {
    id: e.id,
    type: e.type,
    createDate: e.createdAt,
    taxAmount: formatMinor(e.taxMinor, e.currency),
    income: formatMinor(e.incomeMinor, e.incomeCurrency),
    incomeCurrency: e.incomeCurrency,
    taxRate: e.taxRate,
    currency: e.currency,
    amountTotal: formatMinor(e.amountTotalMinor, e.currency),
    affiliateIncome: formatMinor(e.affiliateIncomeMinor, e.incomeCurrency),
    affiliateIncomeCurrency: e.incomeCurrency,
  };
}

/** Element of the refund response: the amounts returned to the customer, as positive numbers; `refundable`: something is left of the payment. */
export function refundRecord(refund: LedgerEntry, baseUrl: string, refundable: boolean) {
  const c = refund.currency;
  return {
    TCFee: minorToNumber(-refund.serviceFeeMinor, c),
    amountTotal: minorToNumber(-refund.amountTotalMinor, c),
    currency: c,
    externalId: refund.externalId ?? '',
    hashId: refund.hashId,
    id: refund.id,
    incomeCurrency: refund.incomeCurrency,
    invoiceLink: `${baseUrl}/invoice/${refund.hashId}`,
    paymentProvider: refund.paymentProvider,
    refundable,
    taxAmount: minorToNumber(-refund.taxMinor, c),
    timestamp: Date.parse(refund.createdAt),
    transactionFee: minorToNumber(-refund.transactionFeeMinor, c),
    vendorIncome: minorToNumber(-refund.incomeMinor, refund.incomeCurrency),
    country: refund.country,
  };
}
