import { notFound } from './errors.ts';
import { isPayment } from './ledger.ts';
import type { Environment } from './model.ts';
import type { Store } from './ports.ts';

/**
 * An invoice (for a payment) or credit note (for a refund), as the PDF shows it. Amounts are
 * positive minor units in the entry's currency; a credit note names the invoice it reverses.
 */
export interface InvoiceDocument {
  kind: 'INVOICE' | 'CREDIT_NOTE';
  number: string;
  issuedAt: string;
  environment: Environment;
  seller: { name: string; email: string };
  buyer: { name: string | null; email: string; country: string; region: string | null };
  item: { description: string; periodStart: string | null };
  currency: string;
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

export function invoiceService(deps: { store: Store }) {
  return {
    /** The document behind `{base_url}/invoice/{hashId}`; the unguessable hash id is the key. */
    async find(environment: Environment, hashId: string): Promise<InvoiceDocument> {
      const entry = await deps.store.entries.findByHash(environment, hashId);
      if (!entry || entry.invoiceNumber === null || entry.invoiceNumber === undefined) throw notFound(`Invoice ${hashId}`);
      const scope = { vendorId: entry.vendorId, environment };
      const transaction = await deps.store.transactions.find(scope, entry.transactionId);
      const vendor = await deps.store.vendors.find(entry.vendorId);
      if (!transaction || !vendor) throw notFound(`Invoice ${hashId}`);
      const customer = await deps.store.customers.find(scope, transaction.customerId);
      const payment = isPayment(entry);
      let creditFor: string | null = null;
      if (!payment && entry.reversesEntryId) {
        const reversed = (await deps.store.entries.listForTransaction(transaction.id)).find((e) => e.id === entry.reversesEntryId);
        if (reversed?.invoiceNumber != null) creditFor = formatInvoiceNumber(reversed.invoiceNumber, environment);
      }
      const name = [customer?.firstName, customer?.lastName].filter(Boolean).join(' ');
      const sign = payment ? 1 : -1;
      return {
        kind: payment ? 'INVOICE' : 'CREDIT_NOTE',
        number: formatInvoiceNumber(entry.invoiceNumber, environment),
        issuedAt: entry.createdAt,
        environment,
        seller: { name: vendor.name, email: vendor.email },
        buyer: { name: name || null, email: transaction.email, country: transaction.country, region: transaction.region },
        item: { description: transaction.productName, periodStart: entry.periodStart },
        currency: entry.currency,
        netMinor: sign * entry.netMinor,
        taxMinor: sign * entry.taxMinor,
        totalMinor: sign * entry.amountTotalMinor,
        taxRate: entry.taxRate,
        taxName: transaction.taxName,
        transactionId: transaction.id,
        reference: entry.externalId,
        creditFor,
      };
    },
  };
}

export type InvoiceService = ReturnType<typeof invoiceService>;
