import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderInvoicePdf } from '../../src/documents/invoice-pdf.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { sampleInvoice } from '../helpers/sample-invoice.ts';

// In a file of its own: what it proves depends on which Arabic document a process lays out first.
const arabic = (over: Parameters<typeof sampleInvoice>[0] = {}) =>
  sampleInvoice({ locale: 'ar', seller: { ...sampleInvoice().seller, logo: null }, ...over });

test("a second Arabic document in one process reads as its own letters, not the first one's", async () => {
  // Shaping marks the face's glyph objects and pdfkit writes a document's ToUnicode map from those marks:
  // with one face shared by every document, a reverse-charge invoice after a taxed one copied 'س' as '+'.
  const buyer = { ...sampleInvoice().buyer, businessName: null, vatId: null, name: 'ليلى حداد' };
  await renderInvoicePdf(arabic({ reverseCharge: false, taxRate: '0.2', taxMinor: 200, totalMinor: 1200, buyer }));
  const text = await pdfText(await renderInvoicePdf(arabic()));
  for (const word of ['العكسي', 'الاحتساب']) assert.ok(text.includes(word), `"${word}" in: ${text}`);
});
