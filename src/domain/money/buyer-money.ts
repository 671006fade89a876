/**
 * Amounts as a buyer reads them, in their locale ("$49.00", "49,00 €", "¥1,500"): the one formatting
 * of the widget, the checkout, its receipt and the invoice, and of the pages people read (the
 * management page, the vendor panel, the admin tool), each in its reader's locale. Dependency-free browser-safe code, so the
 * widget bundle (src/widget/build.ts) can take it as it is; `formatForBuyer` in money.ts is the
 * minor-units entry point. The API's amounts ("53.55") never go through here.
 *
 * Digits are always Latin (0-9), in every locale, so one amount reads the same on the page and in the
 * PDF (whose font is DejaVu Sans), and the number of decimals is always the currency's (ISO 4217), not
 * CLDR's cash rounding.
 */

const formats = new Map<string, Intl.NumberFormat>();

/** A BCP 47 tag as Intl takes it, or `fallback` ('en'): invalid, empty, "*" or one no formatter knows. */
export function buyerLocale(tag: string | null | undefined, fallback = 'en'): string {
  if (!tag) return fallback;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.trim());
    return (canonical && Intl.NumberFormat.supportedLocalesOf(canonical)[0]) || fallback;
  } catch {
    return fallback;
  }
}

/**
 * The reader's locale from an Accept-Language header: its first tag ("de-CH,de;q=0.9" -> "de-CH"), or
 * `fallback` ('en' for buyers; the vendor's pages, the panel and the admin tool, give 'en-US').
 */
export function localeFromAcceptLanguage(header: string | string[] | null | undefined, fallback = 'en'): string {
  const value = Array.isArray(header) ? header[0] : header;
  return buyerLocale(value?.split(',')[0]?.split(';')[0], fallback);
}

/** The locale of a country (ISO alpha-2): its likely language there ("DE" -> "de-DE", "CH" -> "de-CH"), or 'en'. */
export function countryLocale(country: string | null | undefined): string {
  if (!country || !/^[A-Za-z]{2}$/.test(country)) return 'en';
  try {
    const likely = new Intl.Locale('und', { region: country.toUpperCase() }).maximize();
    return likely.language && likely.language !== 'und' ? buyerLocale(`${likely.language}-${likely.region}`) : 'en';
  } catch {
    return 'en';
  }
}

/**
 * An exact decimal string of a currency ("-53.55" EUR, "1500" JPY, "1.250" KWD) in the buyer's locale,
 * with as many decimals as the string has. Intl formats a decimal string exactly (no float in between).
 * The formatter is kept per (locale, currency, decimals): the server formats many amounts.
 */
export function formatDecimalForBuyer(decimal: string, currency: string, locale: string): string {
  const digits = decimalsOf(decimal);
  const key = `${locale}\n${currency}\n${digits}`;
  let format = formats.get(key);
  if (!format) {
    format = amountFormat(currency, digits, locale);
    formats.set(key, format);
  }
  return format.format(decimal as unknown as number);
}

/** The same, with a formatter made for this one amount: the client script formats a few per page (and is kept small). */
export const formatOneDecimalForBuyer = (decimal: string, currency: string, locale: string): string =>
  amountFormat(currency, decimalsOf(decimal), locale).format(decimal as unknown as number);

const decimalsOf = (decimal: string) => (decimal.split('.')[1] || '').length;

/** How every amount a buyer reads is written: the currency's sign, Latin digits, these decimals; 'en' for a locale Intl refuses. */
function amountFormat(currency: string, digits: number, locale: string): Intl.NumberFormat {
  const options: Intl.NumberFormatOptions = {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    numberingSystem: 'latn',
  };
  // A numeric string is formatted exactly by Intl.NumberFormat v3 (ES2023); older engines read it as a Number.
  try {
    return new Intl.NumberFormat(locale, options);
  } catch {
    return new Intl.NumberFormat('en', options);
  }
}
