import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REVERSE_CHARGE_NOTE, renderInvoicePdf } from '../../src/documents/invoice-pdf.ts';
import { periodEnd } from '../../src/domain/reports/invoices.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { sampleInvoice } from '../helpers/sample-invoice.ts';

const document = sampleInvoice;

test('an invoice carries the full legal content: seller block, buyer block with VAT ID, line, period, reverse charge, support e-mail', async () => {
  const pdf = await renderInvoicePdf(document());
  const text = await pdfText(pdf);
  for (const expected of [
    'Invoice 000042',
    'Acme Software GmbH',
    'Hauptstraße 1',
    '10115 Berlin',
    'Germany',
    'VAT ID: DE123456789',
    'Société Générale SARL',
    '12 rue de la Paix',
    '75002 Paris',
    'Ωμέγα Дмитрий Łukasz',
    'buyer@example.fr',
    'Country: France (FR), 75008',
    'VAT ID: FR12345678901',
    'Billing period from 2030-03-05 to 2030-04-05',
    REVERSE_CHARGE_NOTE,
    'help@acme.test',
  ]) {
    assert.ok(text.includes(expected), `"${expected}" in: ${text}`);
  }
  assert.match(text, /Description\s*Qty\s*Unit price\s*Amount\s*Pro plan\s*1\s*10,00\s€\s*10,00\s€/);
  // The logo is embedded as an image.
  assert.ok(pdf.includes('/Subtype /Image'));
});

test('names outside Latin-1 come out of the PDF text intact (embedded DejaVu Sans)', async () => {
  const text = await pdfText(
    await renderInvoicePdf(
      document({ buyer: { ...document().buyer, businessName: null, name: 'Ωμέγα Дмитрий Łukasz' } }),
    ),
  );
  assert.ok(text.includes('Ωμέγα Дмитрий Łukasz'), text);
});

test('without the flag there is no reverse-charge note; without seller details the minimal blocks remain', async () => {
  const doc = document({
    reverseCharge: false,
    seller: {
      name: 'Acme',
      email: 'a@acme.test',
      onBehalfOf: null,
      address: [],
      country: null,
      taxId: null,
      supportEmail: null,
      logo: null,
    },
    buyer: {
      name: null,
      businessName: null,
      address: [],
      email: 'x@example.com',
      country: 'US',
      region: 'CA',
      postalCode: null,
      vatId: null,
    },
  });
  const text = await pdfText(await renderInvoicePdf(doc));
  assert.ok(!text.includes('Reverse charge'), text);
  assert.ok(!text.includes('VAT ID'), text);
  assert.ok(text.includes('Country: United States (US), CA'), text);
});

test('a credit note mirrors the invoice: same blocks, the invoice it credits, and the reverse-charge note', async () => {
  const text = await pdfText(
    await renderInvoicePdf(document({ kind: 'CREDIT_NOTE', number: '000043', creditFor: '000042' })),
  );
  for (const expected of [
    'Credit note 000043',
    'Credit for invoice 000042',
    'VAT ID: DE123456789',
    'VAT ID: FR12345678901',
    REVERSE_CHARGE_NOTE,
    'Total credited',
  ]) {
    assert.ok(text.includes(expected), `"${expected}" in: ${text}`);
  }
});

test('a period ends where the next one starts, counted from the anchor (31 January → end of February → 31 March)', () => {
  const billing = { anchor: '2030-01-31T10:00:00.000Z', period: 2, failedAttempts: 0 };
  assert.equal(
    periodEnd({ chargeFrequency: 'MONTHLY', billing }, '2030-01-31T10:00:00.000Z'),
    '2030-02-28T10:00:00.000Z',
  );
  assert.equal(
    periodEnd({ chargeFrequency: 'MONTHLY', billing }, '2030-02-28T10:00:00.000Z'),
    '2030-03-31T10:00:00.000Z',
  );
  assert.equal(
    periodEnd({ chargeFrequency: 'YEARLY', billing: undefined }, '2030-01-01T00:00:00.000Z'),
    '2031-01-01T00:00:00.000Z',
  );
  assert.equal(periodEnd({ chargeFrequency: 'UNKNOWN', billing: undefined }, '2030-01-01T00:00:00.000Z'), null);
});
