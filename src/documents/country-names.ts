/** Country names from the runtime's ICU data, in the reader's language: nothing to ship or keep up to date. */
const byLocale = new Map<string, Intl.DisplayNames>();

export function countryName(code: string, locale = 'en'): string {
  try {
    let names = byLocale.get(locale);
    if (!names) byLocale.set(locale, (names = new Intl.DisplayNames([locale], { type: 'region' })));
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
