import { notFound } from '../errors.ts';
import { isPayment } from '../payments/index.ts';
import { periodStart } from '../billing/index.ts';
import {
  RECURRING_FREQUENCIES,
  type Environment,
  type LedgerEntry,
  type PaymentMethod,
  type SellerOfRecord,
  type Transaction,
  type Vendor,
} from '../model.ts';
import { sellerOf } from '../production-access.ts';
import type { Store } from '../ports.ts';

/**
 * An invoice (for a payment) or credit note (for a refund), as the PDF shows it. Amounts are
 * positive minor units in the entry's currency; a credit note names the invoice it reverses.
 */
export interface InvoiceDocument {
  kind: 'INVOICE' | 'CREDIT_NOTE';
  number: string;
  /** The buyer's language as the transaction keeps it (null, bought before it was kept: English). */
  locale?: string | null | undefined;
  /** What the payment was made with; null when unknown. */
  paymentMethod?: Pick<PaymentMethod, 'brand' | 'last4' | 'type' | 'wallet'> | null | undefined;
  issuedAt: string;
  environment: Environment;
  /**
   * The vendor's settings (its name stands in for an unset seller name); with SELLER_OF_RECORD=operator
   * the operator's identity, on behalf of the vendor (docs/decisions.md §24).
   */
  seller: {
    name: string;
    /** The vendor's account e-mail; null when the operator sells. */
    email: string | null;
    /** The vendor the operator sells for; null when the vendor sells itself. */
    onBehalfOf: string | null;
    address: string[];
    country: string | null;
    taxId: string | null;
    supportEmail: string | null;
    logo: string | null;
  };
  buyer: {
    name: string | null;
    businessName: string | null;
    /** A business buyer's street and city, one entry per line; empty for a consumer. */
    address: string[];
    email: string;
    country: string;
    region: string | null;
    postalCode: string | null;
    vatId: string | null;
  };
  /** One line: quantity, net unit price; for a subscription payment the period it pays for (end exclusive: the next period's start). */
  item: {
    description: string;
    /** A credit note for part of the payment says so; `note` is the vendor's reason, when given. */
    partial?: boolean | undefined;
    note?: string | null | undefined;
    quantity: number;
    unitNetMinor: number;
    periodStart: string | null;
    periodEnd: string | null;
  };
  /** The buyer accounts for the VAT (EU B2B): the document carries the reverse-charge note. */
  reverseCharge: boolean;
  currency: string;
  /** What a coupon took off an invoice's line (docs/decisions.md §38): the line is at the list price, then this. */
  discountMinor?: number | undefined;
  netMinor: number;
  taxMinor: number;
  totalMinor: number;
  taxRate: string;
  taxName: string;
  transactionId: string;
  reference: string | null;
  /** For a credit note: the number of the invoice it reverses. */
  creditFor: string | null;
}

/** Sandbox numbers carry a prefix so a test document can never pass for a real one. */
export function formatInvoiceNumber(n: number, environment: Environment): string {
  return `${environment === 'sandbox' ? 'TEST-' : ''}${String(n).padStart(6, '0')}`;
}

/**
 * The end of the billing period that starts at `start` (exclusive: the next period's start), counted
 * from the subscription's anchor so that month ends stay calendar-correct; null when unknown.
 */
export function periodEnd(transaction: Pick<Transaction, 'chargeFrequency' | 'billing'>, start: string): string | null {
  const frequency = transaction.chargeFrequency;
  if (!RECURRING_FREQUENCIES.includes(frequency)) return null;
  const from = new Date(start);
  if (Number.isNaN(from.getTime())) return null;
  // A period before the anchor was paid before a resume moved it (docs/decisions.md §41): counted from its own start.
  const anchor =
    transaction.billing && Date.parse(transaction.billing.anchor) <= from.getTime()
      ? new Date(transaction.billing.anchor)
      : from;
  for (let n = 1; n < 200_000; n++) {
    const next = periodStart(anchor, frequency, n);
    if (next.getTime() > from.getTime()) return next.toISOString();
  }
  return null;
}

/** Who an invoice names as the seller: the vendor, or the operator on its behalf; questions go to the vendor either way. */
function sellerOnDocument(vendor: Vendor, sellerOfRecord: SellerOfRecord): InvoiceDocument['seller'] {
  const { identity } = sellerOf(vendor, sellerOfRecord);
  const byOperator = sellerOfRecord.mode === 'operator';
  return {
    name: identity.name || vendor.name,
    email: byOperator ? null : vendor.email,
    onBehalfOf: byOperator ? vendor.sellerName || vendor.name : null,
    address: identity.address ?? [],
    country: identity.country ?? null,
    taxId: identity.taxId ?? null,
    supportEmail: vendor.supportEmail ?? null,
    logo: vendor.logo ?? null,
  };
}

/** An invoice shows its payment's coupon discount; a credit note reverses what was charged, without one. */
const discountOn = (entry: LedgerEntry, payment: boolean): number => (payment ? (entry.discountMinor ?? 0) : 0);

export function invoiceService(deps: { store: Store; sellerOfRecord: SellerOfRecord }) {
  return {
    /** The document behind `{base_url}/invoice/{hashId}`; the unguessable hash id is the key. */
    async find(environment: Environment, hashId: string): Promise<InvoiceDocument> {
      const entry = await deps.store.entries.findByHash(environment, hashId);
      if (!entry || entry.invoiceNumber === null || entry.invoiceNumber === undefined)
        throw notFound(`Invoice ${hashId}`);
      const scope = { vendorId: entry.vendorId, environment };
      const transaction = await deps.store.transactions.find(scope, entry.transactionId);
      const vendor = await deps.store.vendors.find(entry.vendorId);
      if (!transaction || !vendor) throw notFound(`Invoice ${hashId}`);
      const customer = await deps.store.customers.find(scope, transaction.customerId);
      const payment = isPayment(entry);
      let creditFor: string | null = null;
      let partial = false;
      if (!payment && entry.reversesEntryId) {
        const reversed = (await deps.store.entries.listForTransaction(transaction.id)).find(
          (e) => e.id === entry.reversesEntryId,
        );
        if (reversed?.invoiceNumber != null) creditFor = formatInvoiceNumber(reversed.invoiceNumber, environment);
        // A part of the payment credited says so, and why when the vendor said.
        partial = !!reversed && -entry.amountTotalMinor < reversed.amountTotalMinor;
      }
      const method = transaction.paymentMethodId
        ? await deps.store.paymentMethods.find(transaction.paymentMethodId)
        : undefined;
      // The details as issued when the customer has edited them since; else the transaction's (read
      // defensively: the business fields came with the EU B2B work and older rows may lack them).
      const business: Partial<
        Pick<Transaction, 'buyerVatId' | 'reverseCharge' | 'businessName' | 'buyerAddress' | 'buyerName' | 'taxName'>
      > = (await deps.store.portal.issuedBuyer(entry.id)) ?? transaction;
      // The billing name the buyer gave (and may edit), else the customer's name as first bought.
      const name = business.buyerName?.trim() || [customer?.firstName, customer?.lastName].filter(Boolean).join(' ');
      const sign = payment ? 1 : -1;
      return {
        kind: payment ? 'INVOICE' : 'CREDIT_NOTE',
        number: formatInvoiceNumber(entry.invoiceNumber, environment),
        locale: transaction.locale ?? null,
        paymentMethod: method
          ? { brand: method.brand, last4: method.last4, type: method.type, wallet: method.wallet }
          : null,
        issuedAt: entry.createdAt,
        environment,
        seller: sellerOnDocument(vendor, deps.sellerOfRecord),
        buyer: {
          name: name || null,
          businessName: business.businessName ?? null,
          address: business.buyerAddress ? business.buyerAddress.split('\n') : [],
          email: transaction.email,
          country: transaction.country,
          region: transaction.region,
          postalCode: transaction.postalCode,
          vatId: business.buyerVatId ?? null,
        },
        item: {
          description: transaction.productName,
          partial,
          note: payment ? null : entry.description || null,
          ...seatsOnLine(sign * entry.netMinor + discountOn(entry, payment), transaction.quantity),
          periodStart: entry.periodStart,
          periodEnd: entry.periodStart ? periodEnd(transaction, entry.periodStart) : null,
        },
        reverseCharge: business.reverseCharge === true,
        currency: entry.currency,
        discountMinor: discountOn(entry, payment),
        netMinor: sign * entry.netMinor,
        taxMinor: sign * entry.taxMinor,
        totalMinor: sign * entry.amountTotalMinor,
        taxRate: entry.taxRate,
        taxName: business.taxName ?? transaction.taxName,
        transactionId: transaction.id,
        reference: entry.externalId,
        creditFor,
      };
    },
  };
}

export type InvoiceService = ReturnType<typeof invoiceService>;

/**
 * The line's seats (docs/decisions.md §39): quantity × unit price when the line's list net divides by the
 * quantity (a payment, a whole refund: list net = unit × quantity), else one unit of the amount (part of one).
 */
function seatsOnLine(lineMinor: number, quantity: number): { quantity: number; unitNetMinor: number } {
  if (quantity > 1 && lineMinor % quantity === 0) return { quantity, unitNetMinor: lineMinor / quantity };
  return { quantity: 1, unitNetMinor: lineMinor };
}
