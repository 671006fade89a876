import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderInvoicePdf } from '../../src/documents/invoice-pdf.ts';
import { fontFace, fontOrder, type Family } from '../../src/documents/pdf-fonts.ts';
import { familyOf, visualPieces } from '../../src/documents/pdf-lines.ts';
import type { InvoiceDocument } from '../../src/domain/reports/invoices.ts';
import { LOCALES, readCatalog } from '../../src/i18n/index.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { sampleInvoice } from '../helpers/sample-invoice.ts';

/**
 * Invoices and credit notes in the buyer's language (docs/decisions.md §35): a font for every script a
 * language and its buyers' names use, Arabic letters joined and right-to-left lines in reading order,
 * and the words found again in the PDF's text.
 */

/** Names as buyers write them, in each script the documents speak. */
const NAMES: Record<string, string> = {
  ar: 'ليلى حداد',
  he: 'נועה כהן',
  ja: '山田 花子',
  'zh-CN': '王小明',
  ko: '김민지',
  de: 'Jürgen Weiß',
  pl: 'Łukasz Żółć',
  cs: 'Jiří Dvořák',
  tr: 'Çağrı Yılmaz',
  el: 'Ωμέγα Παπαδόπουλος',
  ru: 'Дмитрий Иванов',
};

/** The script whose letters a language's own font must draw (the rest may come from the fallbacks). */
const OWN: Partial<Record<string, RegExp>> = {
  ar: /\p{Script=Arabic}/u,
  he: /\p{Script=Hebrew}/u,
  ja: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u,
  'zh-CN': /\p{Script=Han}/u,
  ko: /\p{Script=Hangul}/u,
};

/** The regular face of a family as fontkit parsed it (the object pdfkit draws with). */
const font = (family: Family) =>
  fontFace(family, 'regular') as unknown as {
    hasGlyphForCodePoint(c: number): boolean;
    glyphForCodePoint(c: number): { id: number };
    layout(text: string): { glyphs: { id: number }[] };
  };

const document = (locale: string | null, over: Partial<InvoiceDocument> = {}): InvoiceDocument => {
  const base = sampleInvoice();
  return sampleInvoice({
    locale,
    paymentMethod: { brand: 'visa', last4: '4242' },
    seller: { ...base.seller, logo: null },
    buyer: { ...base.buyer, name: NAMES[locale ?? ''] ?? 'Jane Doe', businessName: null, address: [] },
    ...over,
  });
};

describe('documents in the buyer’s language', () => {
  test('every character of every document message, and of names in every script, has a glyph in the fonts chosen for the language; its own script in its own font', () => {
    for (const locale of LOCALES) {
      const order = fontOrder(locale);
      const text = Object.values(readCatalog('document', locale)).join('') + Object.values(NAMES).join('');
      for (const char of new Set(text)) {
        if (/\s/u.test(char)) continue;
        const family = familyOf(order, char);
        assert.ok(
          font(family).hasGlyphForCodePoint(char.codePointAt(0)!),
          `${locale}: no glyph for ${char} (U+${char.codePointAt(0)!.toString(16)})`,
        );
        if (OWN[locale]?.test(char)) assert.equal(family, order[0], `${locale}: ${char} in the language's own font`);
      }
    }
  });

  test('Arabic letters are joined: the font shapes a word into its connected forms, not the isolated letters', () => {
    const word = 'فاتورة';
    const shaped = font('arabic')
      .layout(word)
      .glyphs.map((g) => g.id);
    const isolated = [...word].map((c) => font('arabic').glyphForCodePoint(c.codePointAt(0)!).id);
    assert.notDeepEqual(shaped, isolated.reverse());
  });

  test('a right-to-left line is drawn in reading order: words reversed, numbers and Latin kept left to right, brackets mirrored', () => {
    const he = { order: fontOrder('he'), dir: 'rtl' as const };
    const visual = (line: string) =>
      visualPieces(he, line)
        .map((p) => p.text)
        .join('');
    // Pieces with Hebrew letters are handed to fontkit in logical order (it turns them round itself).
    assert.equal(visual('מדינה: צרפת (FR), 75008'), '75008 ,(FR) צרפת :מדינה');
    assert.equal(visual('10115 Berlin'), '10115 Berlin', 'a line without Hebrew keeps its order');
    const de = { order: fontOrder('de'), dir: 'ltr' as const };
    assert.equal(
      visualPieces(de, 'Name: נועה כהן')
        .map((p) => p.text)
        .join(''),
      'Name: כהן נועה',
    );
  });

  for (const [locale, words] of [
    [
      'de',
      [
        'Rechnung 000042',
        'Datum: 5. März 2030',
        'Verkäufer',
        'Käufer',
        'Jürgen Weiß',
        'Land: Frankreich (FR), 75008',
        'Bezahlt mit Visa',
        'Steuerschuldnerschaft des Leistungsempfängers',
        'Reverse charge: VAT to be accounted for by the recipient',
        'Gezahlter Gesamtbetrag',
      ],
    ],
    [
      'ar',
      [
        'فاتورة',
        '000042',
        'البائع',
        'المشتري',
        'ليلى',
        'حداد',
        'فرنسا',
        'العكسي',
        'Reverse charge: VAT to be accounted for by the recipient',
      ],
    ],
    [
      'he',
      ['חשבונית', 'המוכר', 'הקונה', 'נועה', 'כהן', 'צרפת', 'Reverse charge: VAT to be accounted for by the recipient'],
    ],
    ['ja', ['請求書 000042', '販売者', '購入者', '山田 花子', 'フランス', '2030年3月5日', 'リバースチャージ']],
    ['zh-CN', ['发票 000042', '卖方', '买方', '王小明', '法国', '反向征收']],
    ['ko', ['인보이스 000042', '판매자', '구매자', '김민지', '프랑스', '리버스 차지']],
  ] as const) {
    test(`${locale}: the invoice's words and the buyer's name are found in the PDF's text`, async () => {
      const text = await pdfText(await renderInvoicePdf(document(locale)));
      for (const word of words) assert.ok(text.includes(word), `"${word}" in: ${text}`);
    });
  }

  test('a document reads only the fonts it needs: a German invoice embeds no CJK, Arabic or Hebrew font; a Japanese one stays small', async () => {
    const de = (await renderInvoicePdf(document('de'))).toString('latin1');
    assert.match(de, /DejaVuSans/);
    assert.doesNotMatch(de, /NotoSans(JP|Hans|KR|Hebrew)|NotoNaskh/);
    const ja = await renderInvoicePdf(document('ja'));
    assert.match(ja.toString('latin1'), /NotoSansJP/);
    assert.ok(ja.length < 200_000, `subset, not the 4.5 MB font: ${ja.length} bytes`);
  });

  test('a name in another script prints from the font that has it: a Japanese buyer on a German invoice', async () => {
    const pdf = await renderInvoicePdf(document('de', { buyer: { ...document('de').buyer, name: '山田 花子' } }));
    assert.ok((await pdfText(pdf)).includes('山田 花子'));
    assert.match(pdf.toString('latin1'), /NotoSansJP/);
  });

  test('the buyer’s language shows on a credit note too: a partial refund, the invoice it credits, the reason', async () => {
    const text = await pdfText(
      await renderInvoicePdf(
        document('fr', {
          kind: 'CREDIT_NOTE',
          number: '000043',
          creditFor: '000042',
          item: { ...document('fr').item, partial: true, note: 'geste commercial' },
        }),
      ),
    );
    for (const word of [
      'Avoir 000043',
      'Avoir sur la facture 000042',
      'Pro plan, remboursement partiel: geste commercial',
      'Total crédité',
      'Autoliquidation',
    ]) {
      assert.ok(text.includes(word), `"${word}" in: ${text}`);
    }
  });

  test('English keeps its one reverse-charge note; a document without a stored language is English with the amounts of the buyer’s country', async () => {
    const text = await pdfText(await renderInvoicePdf(document(null)));
    assert.equal(text.split('Reverse charge: VAT').length, 2, 'the note once');
    assert.match(text, /10,00\s€/);
    assert.ok(text.includes('Paid with Visa ending in 4242'), text);
  });
});
