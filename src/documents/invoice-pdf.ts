import PDFDocument from 'pdfkit';
import type { InvoiceDocument } from '../domain/invoices.ts';
import { formatAmount, formatDecimal, parseDecimal } from '../domain/money.ts';
import { countryName } from './country-names.ts';

/** "0.19" → "19%", "0.0725" → "7.25%". */
export function ratePercent(rate: string): string {
  const { units, scale } = parseDecimal(rate);
  return `${formatDecimal(scale >= 2 ? { units, scale: scale - 2 } : { units: units * 10n ** BigInt(2 - scale), scale: 0 })}%`;
}

/**
 * The PDF of an invoice or credit note: one A4 page, the standard Helvetica font (nothing to
 * embed or download), text only so it can be read back and searched.
 */
export function renderInvoicePdf(doc: InvoiceDocument): Promise<Buffer> {
  const title = doc.kind === 'INVOICE' ? 'Invoice' : 'Credit note';
  const pdf = new PDFDocument({ size: 'A4', margin: 56, info: { Title: `${title} ${doc.number}`, Author: doc.seller.name, Creator: 'opentill' } });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  const money = (minor: number) => formatAmount(minor, doc.currency);
  const day = doc.issuedAt.slice(0, 10);

  pdf.font('Helvetica-Bold').fontSize(22).text(`${title} ${doc.number}`);
  if (doc.environment === 'sandbox') pdf.font('Helvetica').fontSize(10).fillColor('#b00').text('Sandbox test document: no money was moved.').fillColor('black');
  pdf.moveDown(0.5).font('Helvetica').fontSize(10).text(`Date: ${day}`);
  if (doc.creditFor) pdf.text(`Credit for invoice ${doc.creditFor}`);
  pdf.moveDown();

  pdf.font('Helvetica-Bold').text('Seller');
  pdf.font('Helvetica').text(doc.seller.name).text(doc.seller.email);
  pdf.moveDown();
  pdf.font('Helvetica-Bold').text('Buyer');
  pdf.font('Helvetica');
  if (doc.buyer.name) pdf.text(doc.buyer.name);
  pdf.text(doc.buyer.email).text(`Country: ${countryName(doc.buyer.country)} (${doc.buyer.country})${doc.buyer.region ? `, ${doc.buyer.region}` : ''}`);
  pdf.moveDown(1.5);

  pdf.font('Helvetica-Bold').text(doc.item.description);
  pdf.font('Helvetica');
  if (doc.item.periodStart) pdf.text(`Billing period from ${doc.item.periodStart.slice(0, 10)}`);
  pdf.moveDown(0.5);
  const rows: [string, string][] = [
    ['Net amount', money(doc.netMinor)],
    [`${doc.taxName || 'Tax'} ${ratePercent(doc.taxRate)}`, money(doc.taxMinor)],
    [doc.kind === 'INVOICE' ? 'Total paid' : 'Total credited', money(doc.totalMinor)],
  ];
  for (const [label, value] of rows) {
    const y = pdf.y;
    pdf.text(label, 56, y, { width: 300 });
    pdf.text(value, 356, y, { width: 183, align: 'right' });
  }
  pdf.moveDown(2).fontSize(8).fillColor('#555');
  pdf.text(`Transaction ${doc.transactionId}${doc.reference ? `, payment reference ${doc.reference}` : ''}`, 56);
  pdf.end();
  return done;
}
