import type { InvoiceDocument } from '../domain/reports/index.ts';
import { countryLocale } from '../domain/money/index.ts';
import { formatForBuyer, ratePercent } from '../domain/money/index.ts';
import { countryName } from './country-names.ts';
import { BOLD, openPdf, REGULAR } from './pdf.ts';

/** The note an EU reverse-charge invoice must carry (Article 226(11a) of the VAT Directive). */
export const REVERSE_CHARGE_NOTE =
  'Reverse charge: VAT to be accounted for by the recipient, Article 196 Council Directive 2006/112/EC';

const day = (iso: string) => iso.slice(0, 10);

/** Where the page's text goes: the document, its left margin and the width between the margins. */
interface Page {
  pdf: PDFKit.PDFDocument;
  left: number;
  width: number;
}

/** Amounts of the document in the buyer's country's locale. */
type Money = (minor: number) => string;

/** The document with its fonts registered, and its bytes once it ends. */
const openInvoicePdf = (doc: InvoiceDocument, title: string) =>
  openPdf({ Title: `${title} ${doc.number}`, Author: doc.seller.name });

/**
 * Amounts in the buyer's country's locale, as the checkout showed them; without the bidi marks of
 * right-to-left locales, which a PDF's text has no use for, and with the yen sign DejaVu Sans has
 * for the full-width one of ja-JP.
 */
function moneyOf(doc: InvoiceDocument): Money {
  const locale = countryLocale(doc.buyer.country);
  return (minor: number) =>
    formatForBuyer(minor, doc.currency, locale)
      .replace(/[\u200e\u200f\u061c]/g, '')
      .replace(/\uffe5/g, '¥');
}

/** The logo, the title and number, the sandbox's warning, the date and the invoice a credit note is for. */
function heading({ pdf, left, width }: Page, doc: InvoiceDocument, title: string) {
  if (doc.seller.logo) {
    try {
      pdf.image(doc.seller.logo, left + width - 140, 40, { fit: [140, 56], align: 'right' });
    } catch {
      // A logo pdfkit cannot read is left out rather than costing the buyer their invoice.
    }
    pdf.x = left;
    pdf.y = 56;
  }
  pdf
    .font(BOLD)
    .fontSize(22)
    .text(`${title} ${doc.number}`, left, 56, { width: width - 150 });
  if (doc.environment === 'sandbox')
    pdf
      .font(REGULAR)
      .fontSize(10)
      .fillColor('#b00')
      .text('Sandbox test document: no money was moved.')
      .fillColor('black');
  pdf
    .moveDown(0.5)
    .font(REGULAR)
    .fontSize(10)
    .text(`Date: ${day(doc.issuedAt)}`);
  if (doc.creditFor) pdf.text(`Credit for invoice ${doc.creditFor}`);
  pdf.moveDown();
}

/** The seller's details beside the buyer's. */
function parties({ pdf, left, width }: Page, doc: InvoiceDocument) {
  const top = pdf.y;
  const column = (width - 20) / 2;
  pdf.font(BOLD).text('Seller', left, top, { width: column });
  pdf.font(REGULAR).text(doc.seller.name, { width: column });
  for (const line of doc.seller.address) pdf.text(line, { width: column });
  if (doc.seller.country) pdf.text(countryName(doc.seller.country), { width: column });
  if (doc.seller.taxId) pdf.text(`VAT ID: ${doc.seller.taxId}`, { width: column });
  if (doc.seller.email) pdf.text(doc.seller.email, { width: column });
  if (doc.seller.onBehalfOf) pdf.text(`On behalf of ${doc.seller.onBehalfOf}`, { width: column });
  const sellerBottom = pdf.y;

  const buyerX = left + column + 20;
  pdf.font(BOLD).text('Buyer', buyerX, top, { width: column });
  pdf.font(REGULAR);
  if (doc.buyer.businessName) pdf.text(doc.buyer.businessName, buyerX, pdf.y, { width: column });
  if (doc.buyer.name) pdf.text(doc.buyer.name, buyerX, pdf.y, { width: column });
  for (const line of doc.buyer.address) pdf.text(line, buyerX, pdf.y, { width: column });
  pdf.text(doc.buyer.email, buyerX, pdf.y, { width: column });
  pdf.text(
    `Country: ${countryName(doc.buyer.country)} (${doc.buyer.country})${doc.buyer.region ? `, ${doc.buyer.region}` : ''}${doc.buyer.postalCode ? `, ${doc.buyer.postalCode}` : ''}`,
    buyerX,
    pdf.y,
    {
      width: column,
    },
  );
  if (doc.buyer.vatId) pdf.text(`VAT ID: ${doc.buyer.vatId}`, buyerX, pdf.y, { width: column });
  pdf.x = left;
  pdf.y = Math.max(sellerBottom, pdf.y);
  pdf.moveDown(1.5);
}

/** The line: description | quantity | unit price | amount (net), and the billing period. */
function itemLine({ pdf, left, width }: Page, doc: InvoiceDocument, money: Money) {
  const cols = [
    { x: left, w: 230, align: 'left' as const },
    { x: left + 230, w: 50, align: 'right' as const },
    { x: left + 280, w: 100, align: 'right' as const },
    { x: left + 380, w: width - 380, align: 'right' as const },
  ];
  const row = (cells: string[], font: string) => {
    const y = pdf.y;
    pdf.font(font);
    let bottom = y;
    cells.forEach((cell, i) => {
      pdf.text(cell, cols[i]!.x, y, { width: cols[i]!.w, align: cols[i]!.align });
      bottom = Math.max(bottom, pdf.y);
    });
    pdf.x = left;
    pdf.y = bottom;
  };
  row(['Description', 'Qty', 'Unit price', 'Amount'], BOLD);
  row(
    [
      doc.item.description,
      String(doc.item.quantity),
      money(doc.item.unitNetMinor),
      money(doc.item.unitNetMinor * doc.item.quantity),
    ],
    REGULAR,
  );
  if (doc.item.periodStart) {
    pdf.text(
      doc.item.periodEnd
        ? `Billing period from ${day(doc.item.periodStart)} to ${day(doc.item.periodEnd)}`
        : `Billing period from ${day(doc.item.periodStart)}`,
      left,
      pdf.y,
      { width: 300 },
    );
  }
}

/** Net, tax and total, and the reverse-charge note where it applies. */
function totals({ pdf, left, width }: Page, doc: InvoiceDocument, money: Money) {
  pdf.moveDown(0.5);
  const rows: [string, string][] = [
    ['Net amount', money(doc.netMinor)],
    [`${doc.taxName || 'Tax'} ${ratePercent(doc.taxRate)}`, money(doc.taxMinor)],
    [doc.kind === 'INVOICE' ? 'Total paid' : 'Total credited', money(doc.totalMinor)],
  ];
  for (const [label, value] of rows) {
    const y = pdf.y;
    pdf.text(label, left, y, { width: 300 });
    pdf.text(value, left + 300, y, { width: width - 300, align: 'right' });
  }
  if (doc.reverseCharge) pdf.moveDown().font(BOLD).text(REVERSE_CHARGE_NOTE, left, pdf.y, { width }).font(REGULAR);
}

/** Where to ask about the document, and the transaction and payment it is of. */
function footer({ pdf, left }: Page, doc: InvoiceDocument) {
  pdf.moveDown(2).fontSize(8).fillColor('#555');
  if (doc.seller.supportEmail)
    pdf.text(
      `Questions about this ${doc.kind === 'INVOICE' ? 'invoice' : 'credit note'}: ${doc.seller.supportEmail}`,
      left,
    );
  pdf.text(`Transaction ${doc.transactionId}${doc.reference ? `, payment reference ${doc.reference}` : ''}`, left);
}

/**
 * The PDF of an invoice or credit note: one A4 page in DejaVu Sans, text only (plus the seller's
 * logo when set) so it can be read back and searched.
 */
export function renderInvoicePdf(doc: InvoiceDocument): Promise<Buffer> {
  const title = doc.kind === 'INVOICE' ? 'Invoice' : 'Credit note';
  const { pdf, done } = openInvoicePdf(doc, title);
  const money = moneyOf(doc);
  const left = 56;
  const page = { pdf, left, width: pdf.page.width - 2 * left };
  heading(page, doc, title);
  parties(page, doc);
  itemLine(page, doc, money);
  totals(page, doc, money);
  footer(page, doc);
  pdf.end();
  return done;
}
