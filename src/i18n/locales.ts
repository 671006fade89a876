/**
 * The languages a buyer can read opentill in (docs/decisions.md §32): one catalog per language and
 * surface under src/i18n/catalogs. The panel, the operator's console and the CLI stay English.
 */
export const LOCALES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt-BR',
  'pt-PT',
  'nl',
  'pl',
  'sv',
  'da',
  'fi',
  'nb',
  'cs',
  'tr',
  'ja',
  'zh-CN',
  'ko',
  'ar',
  'he',
] as const;

/** Accented English 40% longer than the original, for finding clipped and hard-coded text; chosen only explicitly. */
export const PSEUDO_LOCALE = 'en-XA';

export type Locale = (typeof LOCALES)[number] | typeof PSEUDO_LOCALE;

export const DEFAULT_LOCALE: Locale = 'en';

const RTL = new Set<string>(['ar', 'he']);

export const textDirection = (locale: Locale): 'ltr' | 'rtl' => (RTL.has(locale) ? 'rtl' : 'ltr');

const BY_LOWER = new Map<string, Locale>(LOCALES.map((l) => [l.toLowerCase(), l]));

/**
 * A tag as one of ours, or undefined: exact first ("pt-PT"), then by language with the regions and
 * scripts that read the same ("de-AT" -> de, "pt" -> pt-BR, "zh-SG" -> zh-CN, "no"/"nn" -> nb, "iw" -> he).
 * Traditional Chinese has no catalog and is not matched, so the reader's next choice is tried.
 */
export function supportedLocale(tag: string | null | undefined, { allowPseudo = false } = {}): Locale | undefined {
  const lower = tag?.trim().toLowerCase().replace(/_/g, '-');
  if (!lower || lower.length > 35) return undefined;
  if (lower === PSEUDO_LOCALE.toLowerCase()) return allowPseudo ? PSEUDO_LOCALE : undefined;
  const exact = BY_LOWER.get(lower);
  if (exact) return exact;
  const [language, ...rest] = lower.split('-');
  switch (language) {
    case 'pt':
      return rest.includes('pt') || rest.includes('ao') || rest.includes('mz') ? 'pt-PT' : 'pt-BR';
    case 'zh':
      return rest.some((part) => part === 'hant' || part === 'tw' || part === 'hk' || part === 'mo')
        ? undefined
        : 'zh-CN';
    case 'no':
    case 'nn':
      return 'nb';
    case 'iw':
      return 'he';
    default:
      return language ? BY_LOWER.get(language) : undefined;
  }
}

/** The tags of an Accept-Language header, most preferred first (by q, then order); q=0 is a refusal. */
export function acceptedTags(header: string | string[] | null | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return [];
  return value
    .slice(0, 1000)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((t) => t.tag && t.tag !== '*' && Number.isFinite(t.q) && t.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((t) => t.tag);
}

/**
 * The buyer's language, decided once (docs/decisions.md §32): the first explicit choice we support
 * (`?locale=`, then `data-ts-locale` / `tc.buy(id, {locale})`, which reach the checkout as `?locale=`,
 * or a transaction's stored locale), then Accept-Language in the reader's order, then English.
 * An explicit choice may name the pseudo-locale; a header never does.
 */
export function resolveLocale(
  explicit: readonly (string | null | undefined)[],
  acceptLanguage?: string | string[] | null,
): Locale {
  for (const choice of explicit) {
    const locale = supportedLocale(choice, { allowPseudo: true });
    if (locale) return locale;
  }
  for (const tag of acceptedTags(acceptLanguage)) {
    const locale = supportedLocale(tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}
