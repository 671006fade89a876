import { KNOWN_COUNTRIES } from '../../../domain/tax/index.ts';
import type { Translator } from '../../../i18n/index.ts';

/**
 * The checkout's country list: every country opentill prices for, but not the codes ISO 3166 has
 * withdrawn (AN, the Netherlands Antilles, dissolved in 2010, which Intl still names "Curaçao" beside
 * CW). Names in the buyer's language (Intl.DisplayNames), sorted for that language (Intl.Collator).
 */
const WITHDRAWN = new Set(['AN', 'BU', 'CS', 'DD', 'FX', 'NT', 'SU', 'TP', 'YU', 'ZR']);

export const CHECKOUT_COUNTRIES: readonly string[] = Object.freeze(KNOWN_COUNTRIES.filter((c) => !WITHDRAWN.has(c)));

const namers = new Map<string, Intl.DisplayNames>();

/** A country's name in the buyer's language; its code when Intl has no name for it. */
export function countryName(tr: Pick<Translator, 'lang'>, code: string): string {
  let namer = namers.get(tr.lang);
  if (!namer) namers.set(tr.lang, (namer = new Intl.DisplayNames(tr.lang, { type: 'region', fallback: 'code' })));
  try {
    return namer.of(code) ?? code;
  } catch {
    return code;
  }
}

const sorted = new WeakMap<readonly string[], Map<string, { code: string; name: string }[]>>();

/** A list's options in the buyer's language, sorted by name as that language sorts; made once per list and language. */
export function countryOptions(
  tr: Pick<Translator, 'lang'>,
  codes: readonly string[] = CHECKOUT_COUNTRIES,
): { code: string; name: string }[] {
  let byLang = sorted.get(codes);
  if (!byLang) sorted.set(codes, (byLang = new Map()));
  let options = byLang.get(tr.lang);
  if (!options) {
    const collator = new Intl.Collator(tr.lang);
    options = codes
      .map((code) => ({ code, name: countryName(tr, code) }))
      .sort((a, b) => collator.compare(a.name, b.name));
    byLang.set(tr.lang, options);
  }
  return options;
}
