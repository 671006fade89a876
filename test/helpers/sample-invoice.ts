import type { InvoiceDocument } from '../../src/domain/reports/invoices.ts';

// A 1x1 PNG.
export const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** An EU business buyer's invoice with every legal block filled (German seller, French buyer, reverse charge). */
export const sampleInvoice = (over: Partial<InvoiceDocument> = {}): InvoiceDocument => ({
  kind: 'INVOICE',
  number: '000042',
  issuedAt: '2030-03-05T09:00:00.000Z',
  environment: 'production',
  seller: {
    name: 'Acme Software GmbH',
    email: 'billing@acme.test',
    onBehalfOf: null,
    address: ['Hauptstraße 1', '10115 Berlin'],
    country: 'DE',
    taxId: 'DE123456789',
    supportEmail: 'help@acme.test',
    logo: PNG,
  },
  buyer: {
    name: 'Ωμέγα Дмитрий Łukasz',
    businessName: 'Société Générale SARL',
    address: ['12 rue de la Paix', '75002 Paris'],
    email: 'buyer@example.fr',
    country: 'FR',
    region: null,
    postalCode: '75008',
    vatId: 'FR12345678901',
  },
  item: {
    description: 'Pro plan',
    quantity: 1,
    unitNetMinor: 1000,
    periodStart: '2030-03-05T09:00:00.000Z',
    periodEnd: '2030-04-05T09:00:00.000Z',
  },
  reverseCharge: true,
  currency: 'EUR',
  netMinor: 1000,
  taxMinor: 0,
  totalMinor: 1000,
  taxRate: '0',
  taxName: 'VAT',
  transactionId: 'TC-TR_x',
  reference: null,
  creditFor: null,
  ...over,
});
