/**
 * VAT identification numbers of business buyers (docs/decisions.md §9). Checking one is a port:
 * `VatIdChecker`. The implementation here checks the format only (the country prefix and that
 * country's pattern, as the EU's VIES service documents them); it cannot tell whether the number was
 * issued. An online check against VIES (ec.europa.eu) would be another implementation of the same
 * port; it cannot run here (no network), and nothing else changes when it is plugged in.
 */
export interface VatIdCheck {
  readonly valid: boolean;
  /** Upper case, country prefix first, no spaces, dots or dashes (e.g. "DE123456789"); the input trimmed when it cannot be normalized. */
  readonly normalized: string;
  /** Why it is not valid, in words for the buyer; null when it is. */
  readonly reason: string | null;
}

export interface VatIdChecker {
  /** Whether `vatId` is a VAT ID of `country` (ISO 3166-1 alpha-2 of the buyer, e.g. GR for a Greek "EL…" number). */
  check(vatId: string, country: string): Promise<VatIdCheck>;
}

/** The 27 member states of the EU, by ISO 3166-1 code. */
export const EU_COUNTRIES: ReadonlySet<string> = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

export const isEuCountry = (country: string | null | undefined): boolean =>
  !!country && EU_COUNTRIES.has(country.toUpperCase());

/** The prefix of a country's VAT numbers: the ISO code, except Greece's "EL". */
export const vatPrefixOf = (country: string): string => (country === 'GR' ? 'EL' : country);

/** What follows the prefix, per member state (VIES's published formats). */
const FORMATS: Readonly<Record<string, RegExp>> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  ES: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^\d{8}$/,
  FR: /^[A-HJ-NP-Z0-9]{2}\d{9}$/,
  GR: /^\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^\d{11}$/,
  LT: /^(\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^[1-9]\d{1,9}$/,
  SE: /^\d{10}01$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
};

const PREFIXES: ReadonlySet<string> = new Set([...EU_COUNTRIES].map(vatPrefixOf));

/** Spain's numbers mix a letter in at either end; one of them must be a letter (NIF of a company or a person). */
const spanishLetterCheck = (rest: string) => /[A-Z]/.test(rest[0]!) || /[A-Z]/.test(rest.at(-1)!);

/** The format-only checker: the prefix must be the buyer's country's, and the rest its pattern. */
export const formatVatIdChecker: VatIdChecker = {
  async check(vatId, country) {
    return checkVatIdFormat(vatId, country);
  },
};

export function checkVatIdFormat(vatId: string, country: string): VatIdCheck {
  const buyerCountry = country.toUpperCase();
  const compact = vatId.toUpperCase().replace(/[\s.\-/]/g, '');
  const invalid = (reason: string, normalized = compact || vatId.trim()): VatIdCheck => ({
    valid: false,
    normalized,
    reason,
  });
  if (!compact) return invalid('Enter the VAT ID.');
  if (compact.length > 20)
    return invalid('A VAT ID has at most 14 characters after its country prefix.', compact.slice(0, 20));
  if (!isEuCountry(buyerCountry))
    return invalid('VAT IDs are checked for buyers in the EU only; outside it no reverse charge applies.');
  const prefix = vatPrefixOf(buyerCountry);
  // A prefix given is one of the EU's; without one, the buyer's country's is assumed.
  const given = compact.slice(0, 2);
  const hasPrefix = PREFIXES.has(given);
  if (hasPrefix && given !== prefix)
    return invalid(`A VAT ID from ${buyerCountry} starts with ${prefix}, not ${given}.`);
  const rest = hasPrefix ? compact.slice(2) : compact;
  const normalized = prefix + rest;
  const format = FORMATS[buyerCountry]!;
  if (!format.test(rest) || (buyerCountry === 'ES' && !spanishLetterCheck(rest)))
    return invalid(`${normalized} does not have the format of a VAT ID from ${buyerCountry}.`, normalized);
  return { valid: true, normalized, reason: null };
}
