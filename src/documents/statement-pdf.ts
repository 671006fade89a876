import type { PayoutStatement } from '../domain/books/index.ts';
import { formatForBuyer } from '../domain/money/index.ts';
import type { StatementLine } from '../domain/ports.ts';
import { entryLabel } from '../markup/entry-words.ts';
import { BOLD, openPdf, REGULAR } from './pdf.ts';

/** Entries listed on the PDF; a statement of more says so and leaves the rest to its CSV. */
export const PDF_ENTRY_LIMIT = 500;

/**
 * A payout statement as a PDF (docs/decisions.md §22): who is paid, for which entries, the lines that
 * make the amount, and the entries (the first PDF_ENTRY_LIMIT; the CSV has them all). Amounts in en-US.
 */
export function renderStatementPdf(
  s: PayoutStatement,
  lines: readonly StatementLine[],
  parties: { vendor: string; platform: string },
): Promise<Buffer> {
  const { pdf, done } = openPdf({ Title: `Payout statement ${s.number}`, Author: parties.platform });
  const money = (minor: number) => formatForBuyer(minor, s.currency, 'en-US');
  const left = 56;
  const width = pdf.page.width - 2 * left;
  const row = (label: string, value: string, bold = false) => {
    const y = pdf.y;
    pdf.font(bold ? BOLD : REGULAR).text(label, left, y, { width: width - 140 });
    pdf.text(value, left + width - 140, y, { width: 140, align: 'right' });
    pdf.font(REGULAR);
  };
  pdf.font(BOLD).fontSize(18).text(`Payout statement ${s.number}`, left);
  pdf.font(REGULAR).fontSize(10).moveDown(0.5);
  pdf.text(`To ${parties.vendor} (${s.vendorId}), from ${parties.platform}`);
  pdf.text(`${s.currency}, ${s.environment}; entries booked before ${s.until.slice(0, 16).replace('T', ' ')} UTC`);
  pdf.text(
    `Made ${s.createdAt.slice(0, 10)}; ${s.paid ? `paid ${s.paid.at.slice(0, 10)}, reference ${s.paid.reference}` : 'not paid yet'}`,
  );
  pdf.text(`Statement ${s.id}`).moveDown();
  const t = s.totals;
  row('Payments, with tax', money(t.grossMinor));
  row('Refunds', money(t.refundsMinor));
  row('Chargebacks', money(t.chargebacksMinor));
  row('Tax', money(-t.taxMinor));
  row("Processor's fees", money(-t.processorFeesMinor));
  row('Platform fees', money(-t.platformFeesMinor));
  if (t.roundingMinor !== 0) row('Rounding of partial refunds', money(t.roundingMinor));
  row('Income', money(t.incomeMinor), true);
  if (s.carriedInMinor !== 0) row('Carried from the statement before', money(s.carriedInMinor));
  row('To pay', money(s.payableMinor), true);
  if (s.carriedOutMinor !== 0) row('Carried to the next statement', money(s.carriedOutMinor));
  pdf.moveDown().font(BOLD).text(`Entries (${s.entryCount})`, left).font(REGULAR).fontSize(8);
  for (const l of lines.slice(0, PDF_ENTRY_LIMIT))
    row(`${l.createdAt.slice(0, 10)}  ${entryLabel(l)}  ${l.transactionId}`, money(l.incomeMinor));
  if (lines.length > PDF_ENTRY_LIMIT)
    pdf.moveDown().text(`and ${lines.length - PDF_ENTRY_LIMIT} more: the statement's CSV lists every entry.`, left);
  pdf.end();
  return done;
}
