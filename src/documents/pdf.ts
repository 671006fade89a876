import PDFDocument from 'pdfkit';
import { fontFace } from './pdf-fonts.ts';

// DejaVu Sans for the vendor's documents (payout statements, English): it covers Latin, Greek and
// Cyrillic, which the built-in Helvetica (Latin-1 only) does not. The buyer's documents choose their
// fonts by language (pdf-fonts.ts); both share the one parsed face.
export const REGULAR = 'DejaVuSans';
export const BOLD = 'DejaVuSans-Bold';

/** An A4 document with opentill's fonts registered, and its bytes once it ends. */
export function openPdf(info: { Title: string; Author: string }, lang = 'en') {
  const pdf = new PDFDocument({ size: 'A4', margin: 56, lang, info: { ...info, Creator: 'opentill' } });
  // pdfkit takes a parsed fontkit font where its typings say bytes or a path.
  pdf.registerFont(REGULAR, fontFace('latin', 'regular') as never);
  pdf.registerFont(BOLD, fontFace('latin', 'bold') as never);
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  return { pdf, done };
}
