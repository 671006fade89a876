import type { Mutant } from './mutant.ts';

const EMAIL_UNIT = 'test/unit/email-languages.test.ts';
const DOCUMENT_UNIT = 'test/unit/document-languages.test.ts';
const END_TO_END = 'test/emails/email-buyer-language.test.ts';

/** Mutants of e-mails, invoices and credit notes in the buyer's language (issue 36). */
export const documentLanguageMutants: Mutant[] = [
  {
    id: 'email-language-ignored',
    file: 'src/mail/email-templates.ts',
    find: 'translator(resolveLocale([view.locale]))',
    replace: "translator('en')",
    tests: [EMAIL_UNIT, END_TO_END],
  },
  {
    id: 'email-rtl-document-left-to-right',
    file: 'src/mail/email-html.ts',
    find: '<html lang="${tr.lang}" dir="${tr.dir}">',
    replace: '<html lang="${tr.lang}" dir="ltr">',
    tests: [EMAIL_UNIT, END_TO_END],
  },
  {
    id: 'email-rtl-amounts-not-mirrored',
    file: 'src/mail/email-html.ts',
    find: "const end = tr.dir === 'rtl' ? 'left' : 'right';",
    replace: "const end = 'right';",
    tests: [EMAIL_UNIT],
  },
  {
    id: 'invoice-language-ignored',
    file: 'src/documents/invoice-pdf.ts',
    find: 'translator(resolveLocale([doc.locale]))',
    replace: 'translator(DEFAULT_LOCALE)',
    tests: [DOCUMENT_UNIT, END_TO_END],
  },
  {
    id: 'pdf-rtl-words-in-logical-order',
    file: 'src/documents/pdf-lines.ts',
    find: 'mirrored.split(/(\\s+)/u).reverse()',
    replace: 'mirrored.split(/(\\s+)/u)',
    tests: [DOCUMENT_UNIT],
  },
  {
    id: 'pdf-no-font-fallback',
    file: 'src/documents/pdf-lines.ts',
    find: 'return order.find((family) => covers(family, codePoint)) ?? order[0]!;',
    replace: 'return order[0]!;',
    tests: [DOCUMENT_UNIT],
  },
  {
    id: 'reverse-charge-english-note-dropped',
    file: 'src/documents/invoice-pdf.ts',
    find: 'if (tr.locale !== DEFAULT_LOCALE) line(page, REVERSE_CHARGE_NOTE',
    replace: 'if (tr.locale === DEFAULT_LOCALE) line(page, REVERSE_CHARGE_NOTE',
    tests: [DOCUMENT_UNIT, 'test/unit/invoice-legal.test.ts'],
  },
  {
    id: 'invoice-billing-name-ignored',
    file: 'src/domain/reports/invoices.ts',
    find: 'business.buyerName?.trim() ||',
    replace: '',
    tests: [END_TO_END],
  },
];
