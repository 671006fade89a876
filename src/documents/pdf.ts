import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

// DejaVu Sans (npm dejavu-fonts-ttf) for all text: it covers Latin, Greek, Cyrillic, Hebrew and basic
// Arabic, which the built-in Helvetica (Latin-1 only) does not. Read from node_modules once, never
// downloaded; pdfkit embeds only the glyphs a document uses.
const require = createRequire(import.meta.url);
let fonts: { regular: Buffer; bold: Buffer } | undefined;
function loadFonts() {
  fonts ??= {
    regular: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    bold: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  };
  return fonts;
}
export const REGULAR = 'DejaVuSans';
export const BOLD = 'DejaVuSans-Bold';

/** An A4 document with opentill's fonts registered, and its bytes once it ends. */
export function openPdf(info: { Title: string; Author: string }) {
  const pdf = new PDFDocument({ size: 'A4', margin: 56, info: { ...info, Creator: 'opentill' } });
  const { regular, bold } = loadFonts();
  pdf.registerFont(REGULAR, regular);
  pdf.registerFont(BOLD, bold);
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  return { pdf, done };
}
