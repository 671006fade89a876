import bidiModule, { type Bidi } from 'bidi-js';
import { covers, fontFace, fontName, type Family, type Weight } from './pdf-fonts.ts';

/*
 * Text on a document's page in any script (docs/decisions.md §35). pdfkit shapes a run of text with
 * fontkit (Arabic letters joined) but neither orders right-to-left text nor falls back to another font,
 * so this file does both: a line is wrapped in logical order, split into the Unicode bidi algorithm's
 * runs and put in visual order, each run split by the font that has its characters, and each piece
 * drawn at its place. Within a right-to-left piece fontkit reverses the glyphs itself (it reads the
 * script), so a piece is handed over in logical order.
 */

// bidi-js's typings declare an ES default export; Node hands its CommonJS factory over as the default.
const bidi = (bidiModule as unknown as () => Bidi)();

/** Where text goes: the document, the fonts to try in order, the paragraph direction. */
export interface Writer {
  pdf: PDFKit.PDFDocument;
  order: Family[];
  dir: 'ltr' | 'rtl';
  /** The faces registered with the document so far: a face is read and embedded only once it is used. */
  registered: Set<string>;
}

/** Makes a face the document's current font, registering it the first time. */
function use(writer: Writer, family: Family, weight: Weight, size: number) {
  const name = fontName(family, weight);
  if (!writer.registered.has(name)) {
    // pdfkit takes a parsed fontkit font where its typings say bytes or a path.
    writer.pdf.registerFont(name, fontFace(family, weight) as never);
    writer.registered.add(name);
  }
  return writer.pdf.font(name).fontSize(size * (SCALE[family] ?? 1));
}

export interface TextStyle {
  size: number;
  weight?: Weight | undefined;
  color?: string | undefined;
  /** Which side the line keeps to; start and end follow the writer's direction. */
  align?: 'start' | 'end' | undefined;
}

interface Piece {
  text: string;
  family: Family;
}

/** Naskh is drawn small for its size (tall ascenders, a low body): set a little larger to match the Latin beside it. */
const SCALE: Partial<Record<Family, number>> = { arabic: 1.15 };

const RTL_SCRIPT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/u;
/** Characters that may break a line with no space: Han, kana (Korean is written with spaces). */
const CJK = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

/** The first font of the writer's order that draws the character; the first font when none does. */
export function familyOf(order: readonly Family[], char: string): Family {
  const codePoint = char.codePointAt(0)!;
  if (/\s/u.test(char)) return order[0]!;
  // Arabic and Hebrew fonts draw only their script well: digits and Latin beside them keep one face.
  if ((order[0] === 'arabic' || order[0] === 'hebrew') && !RTL_SCRIPT.test(char) && covers('latin', codePoint))
    return 'latin';
  return order.find((family) => covers(family, codePoint)) ?? order[0]!;
}

/** A text split where the font changes, in logical order. */
function byFont(order: readonly Family[], text: string): Piece[] {
  const pieces: Piece[] = [];
  for (const char of text) {
    const family = familyOf(order, char);
    const last = pieces.at(-1);
    if (last && last.family === family) last.text += char;
    else pieces.push({ text: char, family });
  }
  return pieces;
}

/** Runs of one embedding level, in logical order. */
function levelRuns(line: string, dir: 'ltr' | 'rtl'): { text: string; level: number }[] {
  const { levels } = bidi.getEmbeddingLevels(line, dir);
  const runs: { text: string; level: number }[] = [];
  for (let i = 0; i < line.length; i++) {
    const level = levels[i]!;
    const last = runs.at(-1);
    if (last && last.level === level) last.text += line[i];
    else runs.push({ text: line[i]!, level });
  }
  return runs;
}

/** Runs in visual order (rule L2: from the highest level down to the lowest odd one, reverse each stretch). */
function visualRuns(runs: { text: string; level: number }[]) {
  const out = [...runs];
  const max = Math.max(...out.map((r) => r.level));
  const lowestOdd = Math.min(...out.map((r) => (r.level % 2 ? r.level : r.level + 1)));
  for (let level = max; level >= lowestOdd; level--) {
    for (let i = 0; i < out.length; i++) {
      if (out[i]!.level < level) continue;
      let j = i;
      while (j + 1 < out.length && out[j + 1]!.level >= level) j++;
      out.splice(i, j - i + 1, ...out.slice(i, j + 1).reverse());
      i = j;
    }
  }
  return out;
}

/** A line as pieces in visual order, left to right. */
export function visualPieces(writer: Pick<Writer, 'order' | 'dir'>, line: string): Piece[] {
  const pieces: Piece[] = [];
  // A line with no right-to-left letter (an address, an e-mail) keeps its own order, as dir=auto would.
  const dir = RTL_SCRIPT.test(line) ? writer.dir : 'ltr';
  for (const run of visualRuns(levelRuns(line, dir))) {
    if (run.level % 2 === 0) {
      // fontkit would turn an Arabic digit run around (it reads the script as right-to-left): pre-turn it.
      for (const p of byFont(writer.order, run.text))
        pieces.push(RTL_SCRIPT.test(p.text) ? { ...p, text: [...p.text].reverse().join('') } : p);
      continue;
    }
    const mirrored = [...run.text].map((c) => bidi.getMirroredCharacter(c) ?? c).join('');
    for (const word of mirrored.split(/(\s+)/u).reverse()) {
      // fontkit turns a piece with Hebrew or Arabic letters around itself; punctuation alone it does not.
      for (const p of byFont(writer.order, word).reverse())
        pieces.push(RTL_SCRIPT.test(p.text) ? p : { ...p, text: [...p.text].reverse().join('') });
    }
  }
  return pieces;
}

/** The width of a text in points, each piece in its own font. */
export function widthOf(writer: Writer, text: string, style: TextStyle): number {
  let width = 0;
  for (const piece of byFont(writer.order, text))
    width += use(writer, piece.family, style.weight ?? 'regular', style.size).widthOfString(piece.text);
  return width;
}

/** The places a line may break: after spaces, and between CJK characters. */
function tokens(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(/(?<=\s)/u)) {
    let current = '';
    for (const char of part) {
      if (CJK.test(char) && current) {
        out.push(current);
        current = '';
      }
      current += char;
      if (CJK.test(char)) {
        out.push(current);
        current = '';
      }
    }
    if (current) out.push(current);
  }
  return out;
}

/** A text wrapped to a width, in logical order; explicit line breaks kept. */
export function wrap(writer: Writer, text: string, width: number, style: TextStyle): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const token of tokens(paragraph)) {
      if (line && widthOf(writer, (line + token).trimEnd(), style) > width) {
        lines.push(line.trimEnd());
        line = token.trimStart();
      } else line += token;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/** Draws a text in a box from its top; returns the y below it. */
export function write(writer: Writer, text: string, x: number, y: number, width: number, style: TextStyle): number {
  const { pdf } = writer;
  const lineHeight = style.size * 1.4 * (SCALE[writer.order[0]!] ?? 1);
  const toRight = (style.align === 'end') !== (writer.dir === 'rtl');
  pdf.fillColor(style.color ?? 'black');
  for (const line of wrap(writer, text, width, style)) {
    const pieces = visualPieces(writer, line);
    const widths = pieces.map((p) => widthOf(writer, p.text, style));
    let at = toRight ? x + width - widths.reduce((a, b) => a + b, 0) : x;
    pieces.forEach((piece, i) => {
      use(writer, piece.family, style.weight ?? 'regular', style.size).text(piece.text, at, y, { lineBreak: false });
      at += widths[i]!;
    });
    y += lineHeight;
  }
  pdf.fillColor('black');
  return y;
}
