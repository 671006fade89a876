import type { Translator } from '../i18n/index.ts';

/**
 * A tax's name in the reader's language: the names opentill's tax tables give ("VAT", "GST", "HST",
 * "GST + PST", "Sales tax", "Reverse charge") have a translation; any other is shown as stored, and
 * none at all is "Tax".
 */
export function taxLabel(tr: Translator, name: string): string {
  const id = name
    .trim()
    .toUpperCase()
    .replace(/[^A-Z]+/g, '_');
  return tr.t('document.taxName', { name: id || 'NONE', stored: name.trim() });
}
