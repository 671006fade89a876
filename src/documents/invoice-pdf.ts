import type { InvoiceDocument } from '../domain/reports/index.ts';
import { countryLocale, formatForBuyer, ratePercent } from '../domain/money/index.ts';
import { DEFAULT_LOCALE, paymentMethodLabel, resolveLocale, translator, type Translator } from '../i18n/index.ts';
import { countryName } from './country-names.ts';
import { fontOrder } from './pdf-fonts.ts';
import { openPdf } from './pdf.ts';
import { write, type TextStyle, type Writer } from './pdf-lines.ts';
import { taxLabel } from './tax-label.ts';

/** The note an EU reverse-charge invoice must carry (Article 226(11a) of the VAT Directive), in English. */
export const REVERSE_CHARGE_NOTE =
  'Reverse charge: VAT to be accounted for by the recipient, Article 196 Council Directive 2006/112/EC';

/**
 * An invoice or credit note in the buyer's language (docs/decisions.md §35): the transaction's stored
 * locale, English when it has none. Right-to-left languages mirror the page (seller on the right,
 * amounts on the left). The reverse-charge note is given in the buyer's language and in English, the
 * language every EU tax office reads.
 */
interface Page {
  w: Writer;
  tr: Translator;
  doc: InvoiceDocument;
  left: number;
  width: number;
  /** The next line's top. */
  y: number;
  money: (minor: number) => string;
  day: (iso: string) => string;
}

/** A box `offset` points from the start side (left, or right in Arabic and Hebrew), `w` wide. */
const x = (page: Page, offset: number, w: number) =>
  page.w.dir === 'rtl' ? page.left + page.width - offset - w : page.left + offset;

function line(page: Page, text: string, offset: number, w: number, style: TextStyle = { size: 10 }) {
  page.y = write(page.w, text, x(page, offset, w), page.y, w, style);
}

/**
 * Amounts as the checkout showed them: in the buyer's language, or (sold before it was kept) in the
 * buyer's country's locale; without bidi marks, which the page's own ordering replaces.
 */
function moneyOf(doc: InvoiceDocument, tr: Translator) {
  const locale = doc.locale ? tr.lang : countryLocale(doc.buyer.country);
  return (minor: number) =>
    formatForBuyer(minor, doc.currency, locale)
      .replace(/[\u200e\u200f\u061c]/g, '')
      .replace(/\uffe5/g, '¥');
}

/** The logo, the title and number, the sandbox's warning, the date and the invoice a credit note is for. */
function heading(page: Page, title: string) {
  const { doc, tr, w } = page;
  if (doc.seller.logo) {
    try {
      w.pdf.image(doc.seller.logo, x(page, page.width - 140, 140), 40, {
        fit: [140, 56],
        ...(w.dir === 'rtl' ? {} : { align: 'right' as const }),
      });
    } catch {
      // A logo pdfkit cannot read is left out rather than costing the buyer their invoice.
    }
  }
  page.y = 56;
  line(page, title, 0, page.width - 150, { size: 22, weight: 'bold' });
  if (doc.environment === 'sandbox') line(page, tr.t('document.sandbox'), 0, page.width, { size: 10, color: '#b00' });
  page.y += 5;
  line(page, tr.t('document.date', { date: page.day(doc.issuedAt) }), 0, page.width);
  if (doc.creditFor) line(page, tr.t('document.creditFor', { number: doc.creditFor }), 0, page.width);
  page.y += 14;
}

/** The seller's lines and the buyer's, each in the document's language. */
function partyLines(page: Page): { seller: string[]; buyer: string[] } {
  const { doc, tr } = page;
  const s = doc.seller;
  const b = doc.buyer;
  const where = [b.region, b.postalCode].filter(Boolean).map((part) => `, ${part}`);
  return {
    seller: [
      s.name,
      ...s.address,
      ...(s.country ? [countryName(s.country, tr.lang)] : []),
      ...(s.taxId ? [tr.t('document.vatId', { id: s.taxId })] : []),
      ...(s.email ? [s.email] : []),
      ...(s.onBehalfOf ? [tr.t('document.onBehalfOf', { name: s.onBehalfOf })] : []),
    ],
    buyer: [
      ...(b.businessName ? [b.businessName] : []),
      ...(b.name ? [b.name] : []),
      ...b.address,
      b.email,
      `${tr.t('document.country', { country: countryName(b.country, tr.lang), code: b.country })}${where.join('')}`,
      ...(b.vatId ? [tr.t('document.vatId', { id: b.vatId })] : []),
    ],
  };
}

/** The seller's details beside the buyer's. */
function parties(page: Page) {
  const top = page.y;
  const column = (page.width - 20) / 2;
  const { seller, buyer } = partyLines(page);
  let bottom = top;
  for (const [offset, label, lines] of [
    [0, page.tr.t('document.seller'), seller],
    [column + 20, page.tr.t('document.buyer'), buyer],
  ] as const) {
    page.y = top;
    line(page, label, offset, column, { size: 10, weight: 'bold' });
    for (const text of lines) line(page, text, offset, column);
    bottom = Math.max(bottom, page.y);
  }
  page.y = bottom + 21;
}

/** A table row: description | quantity | unit price | amount; the first cell at the start side. */
function row(page: Page, cells: string[], style: TextStyle) {
  const widths = [230, 50, 100, page.width - 380];
  const top = page.y;
  let bottom = top;
  let offset = 0;
  cells.forEach((cell, i) => {
    page.y = top;
    line(page, cell, offset, widths[i]!, { ...style, align: i === 0 ? 'start' : 'end' });
    bottom = Math.max(bottom, page.y);
    offset += widths[i]!;
  });
  page.y = bottom;
}

/** The line, its billing period and what it was paid with. */
function itemLine(page: Page) {
  const { doc, tr, money } = page;
  const item = doc.item;
  let description = item.partial ? tr.t('document.partialRefund', { product: item.description }) : item.description;
  if (item.note) description += `: ${item.note}`;
  row(
    page,
    [tr.t('document.description'), tr.t('document.quantity'), tr.t('document.unitPrice'), tr.t('document.amount')],
    { size: 10, weight: 'bold' },
  );
  row(page, [description, String(item.quantity), money(item.unitNetMinor), money(item.unitNetMinor * item.quantity)], {
    size: 10,
  });
  if (item.periodStart) {
    const start = page.day(item.periodStart);
    line(
      page,
      item.periodEnd
        ? tr.t('document.periodFromTo', { start, end: page.day(item.periodEnd) })
        : tr.t('document.periodFrom', { start }),
      0,
      320,
    );
  }
  if (doc.paymentMethod)
    line(page, tr.t('document.paidWith', { method: paymentMethodLabel(tr, doc.paymentMethod) }), 0, 320);
}

/** Net, tax and total, and the reverse-charge note where it applies. */
function totals(page: Page) {
  const { doc, tr, money } = page;
  page.y += 7;
  const rows: [string, string][] = [
    // A coupon's discount comes off the line's list price before the net (docs/decisions.md §38).
    ...(doc.discountMinor ? ([[tr.t('document.discount'), `−${money(doc.discountMinor)}`]] as [string, string][]) : []),
    [tr.t('document.netAmount'), money(doc.netMinor)],
    [`${taxLabel(tr, doc.taxName)} ${ratePercent(doc.taxRate)}`, money(doc.taxMinor)],
    [tr.t(doc.kind === 'INVOICE' ? 'document.totalPaid' : 'document.totalCredited'), money(doc.totalMinor)],
  ];
  for (const [label, value] of rows) {
    const top = page.y;
    line(page, label, 0, 300);
    page.y = top;
    line(page, value, 300, page.width - 300, { size: 10, align: 'end' });
  }
  if (!doc.reverseCharge) return;
  page.y += 14;
  line(page, tr.t('document.reverseCharge'), 0, page.width, { size: 10, weight: 'bold' });
  if (tr.locale !== DEFAULT_LOCALE) line(page, REVERSE_CHARGE_NOTE, 0, page.width, { size: 9 });
}

/** Where to ask about the document, and the transaction and payment it is of. */
function footer(page: Page) {
  const { doc, tr } = page;
  const small = { size: 8, color: '#555' };
  page.y += 28;
  if (doc.seller.supportEmail) {
    const key = doc.kind === 'INVOICE' ? 'document.questionsInvoice' : 'document.questionsCreditNote';
    line(page, tr.t(key, { email: doc.seller.supportEmail }), 0, page.width, small);
  }
  const id = doc.transactionId;
  line(
    page,
    doc.reference
      ? tr.t('document.transactionReference', { id, reference: doc.reference })
      : tr.t('document.transaction', { id }),
    0,
    page.width,
    small,
  );
}

/**
 * The PDF of an invoice or credit note: one A4 page, text only (plus the seller's logo when set) so it
 * can be read back and searched, in fonts that cover the buyer's script (src/documents/pdf-fonts.ts).
 */
export function renderInvoicePdf(doc: InvoiceDocument): Promise<Buffer> {
  const tr = translator(resolveLocale([doc.locale]));
  const title = tr.t(doc.kind === 'INVOICE' ? 'document.invoiceTitle' : 'document.creditNoteTitle', {
    number: doc.number,
  });
  const { pdf, done } = openPdf({ Title: title, Author: doc.seller.name }, tr.lang);
  const page: Page = {
    w: { pdf, order: fontOrder(tr.locale), dir: tr.dir, registered: new Set() },
    tr,
    doc,
    left: 56,
    width: pdf.page.width - 112,
    y: 56,
    money: moneyOf(doc, tr),
    // English keeps the ISO date (unambiguous for US and UK readers alike); other languages their own.
    day: (iso) => (tr.locale === DEFAULT_LOCALE ? iso.slice(0, 10) : tr.date(iso, 'long')),
  };
  heading(page, title);
  parties(page);
  itemLine(page);
  totals(page);
  footer(page);
  pdf.end();
  return done;
}
