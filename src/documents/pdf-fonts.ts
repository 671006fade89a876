import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/*
 * The fonts of the buyer's documents (docs/decisions.md §35), from npm, never downloaded: DejaVu Sans
 * (Latin, Greek, Cyrillic), Noto Naskh Arabic, Noto Sans Hebrew and Noto Sans JP, SC (Simplified
 * Chinese) and KR. A document's language picks the first font; a character it lacks is looked up in
 * the others in order, so a Japanese name on a German invoice still prints. Each file is read the first
 * time a document needs it (the CJK ones are 4 to 8 MB; most servers never print Korean), and pdfkit
 * embeds only the glyphs a document uses.
 */

const require = createRequire(import.meta.url);

export type Family = 'latin' | 'arabic' | 'hebrew' | 'japanese' | 'chinese' | 'korean';
export type Weight = 'regular' | 'bold';

/** The files of a family: the package and its regular and bold faces, beside the package's entry point. */
const FILES: Record<Family, { pkg: string; dir: string; regular: string; bold: string }> = {
  latin: { pkg: 'dejavu-fonts-ttf', dir: 'ttf', regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' },
  arabic: {
    pkg: '@embedpdf/fonts-arabic',
    dir: 'fonts',
    regular: 'NotoNaskhArabic-Regular.ttf',
    bold: 'NotoNaskhArabic-Bold.ttf',
  },
  hebrew: {
    pkg: '@embedpdf/fonts-hebrew',
    dir: 'fonts',
    regular: 'NotoSansHebrew-Regular.ttf',
    bold: 'NotoSansHebrew-Bold.ttf',
  },
  japanese: { pkg: '@embedpdf/fonts-jp', dir: 'fonts', regular: 'NotoSansJP-Regular.otf', bold: 'NotoSansJP-Bold.otf' },
  chinese: {
    pkg: '@embedpdf/fonts-sc',
    dir: 'fonts',
    regular: 'NotoSansHans-Regular.otf',
    bold: 'NotoSansHans-Bold.otf',
  },
  korean: { pkg: '@embedpdf/fonts-kr', dir: 'fonts', regular: 'NotoSansKR-Regular.otf', bold: 'NotoSansKR-Bold.otf' },
};

/** The order fonts are tried in, by the document's language: its own script's first, then the rest. */
const FIRST: Record<string, Family> = { ar: 'arabic', he: 'hebrew', ja: 'japanese', 'zh-CN': 'chinese', ko: 'korean' };
const ALL: Family[] = ['latin', 'arabic', 'hebrew', 'japanese', 'chinese', 'korean'];

export function fontOrder(locale: string): Family[] {
  const first = FIRST[locale] ?? 'latin';
  return [first, ...ALL.filter((f) => f !== first)];
}

/** What opentill asks of a parsed font (fontkit's, which pdfkit lays text out with). */
interface ParsedFont {
  hasGlyphForCodePoint(codePoint: number): boolean;
  layout(text: string): unknown;
}
const fontkit = require('fontkit') as { create(data: Buffer): ParsedFont };

/** Where a package keeps its files: its package.json's folder (its exports do not list the font files). */
function packageDir(pkg: string): string {
  let dir = dirname(require.resolve(pkg === 'dejavu-fonts-ttf' ? `${pkg}/package.json` : pkg));
  while (!dir.endsWith(pkg.split('/').pop()!)) dir = dirname(dir);
  return dir;
}

const faces = new Map<string, ParsedFont>();
const files = new Map<string, Buffer>();

/**
 * Families whose text is shaped (Arabic joins its letters): laying out a run marks the shared glyph
 * objects with the characters they stood for there, and pdfkit writes a document's ToUnicode map from
 * those marks, so a second document drawn with the same parsed face could copy or search as the wrong
 * letters ("س" came out as "+"). Such a face is parsed anew for each document; it is small.
 */
const SHAPED = new Set<Family>(['arabic']);

/**
 * A face for a document: parsed once and shared by every document (pdfkit takes a parsed font as it
 * takes bytes, and parsing a CJK font per document would cost half a second; each document still
 * embeds only its own glyphs), except a shaped family's, parsed from its bytes read once.
 */
export function fontFace(family: Family, weight: Weight): ParsedFont {
  const key = fontName(family, weight);
  let face = faces.get(key);
  if (!face) {
    let bytes = files.get(key);
    if (!bytes) {
      const file = FILES[family];
      files.set(key, (bytes = readFileSync(join(packageDir(file.pkg), file.dir, file[weight]))));
    }
    face = fontkit.create(bytes);
    if (!SHAPED.has(family)) faces.set(key, face);
  }
  return face;
}

/** Whether a family draws a character (its regular face; the bold ones cover the same). */
export const covers = (family: Family, codePoint: number) => coverageFace(family).hasGlyphForCodePoint(codePoint);

const coverage = new Map<Family, ParsedFont>();
/** The face coverage is asked of: kept, since asking lays nothing out. */
function coverageFace(family: Family): ParsedFont {
  let face = coverage.get(family);
  if (!face) coverage.set(family, (face = fontFace(family, 'regular')));
  return face;
}

/** The pdfkit name of a face. */
export function fontName(family: Family, weight: Weight) {
  return `${family}-${weight}`;
}
