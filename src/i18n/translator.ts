import { createIntl, createIntlCache, type IntlShape } from '@formatjs/intl';
import { formatForBuyer } from '../domain/money/index.ts';
import { escapeHtml, Html } from '../markup/html.ts';
import { messagesOf } from './catalogs.ts';
import { DEFAULT_LOCALE, PSEUDO_LOCALE, textDirection, type Locale } from './locales.ts';

export type MessageValues = Record<string, string | number | Date | Html | null | undefined>;
/** A rich-text tag in a message (`<link>…</link>`): gets its content, already escaped, and wraps it. */
export type TagFormatter = (content: Html) => Html;

/** What a page, e-mail or document needs to speak the reader's language. */
export interface Translator {
  locale: Locale;
  /** The tag for number and date formats and the `lang` attribute ("en" for the pseudo-locale). */
  lang: string;
  dir: 'ltr' | 'rtl';
  /** A message as plain text ("<surface>.<key>"); a key English lacks is a programming error and throws. */
  t(key: string, values?: MessageValues): string;
  /** A message as HTML: its text and values escaped, its tags made by `tags`. */
  html(key: string, values?: MessageValues, tags?: Record<string, TagFormatter>): Html;
  /** An amount in minor units, formatted for the reader. */
  money(minor: number, currency: string): string;
  /** A day (ISO date or time, read in UTC as every date opentill shows) in the reader's long form: "3 December 2026". */
  date(at: string | Date, style?: 'long' | 'medium' | 'short'): string;
}

const cache = createIntlCache();
const intls = new Map<Locale, IntlShape<Html>>();
const english = () => messagesOf(DEFAULT_LOCALE);

function intlOf(locale: Locale): IntlShape<Html> {
  let intl = intls.get(locale);
  if (!intl) {
    const own = messagesOf(locale);
    // A catalog that lacks a key falls back to English (the completeness test keeps this from happening).
    const messages = locale === DEFAULT_LOCALE ? own : { ...english(), ...own };
    intl = createIntl<Html>(
      {
        locale: locale === PSEUDO_LOCALE ? 'en' : locale,
        defaultLocale: DEFAULT_LOCALE,
        messages: messages as never,
        timeZone: 'UTC',
        onError: (error) => {
          throw error;
        },
      },
      cache,
    );
    intls.set(locale, intl);
  }
  return intl;
}

function known(key: string) {
  if (!(key in english())) throw new Error(`No English message "${key}" in src/i18n/catalogs`);
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

export function translator(locale: Locale): Translator {
  const intl = intlOf(locale);
  const lang = locale === PSEUDO_LOCALE ? 'en' : locale;
  const format = (key: string, values: Record<string, unknown>) => {
    known(key);
    return intl.formatMessage({ id: key }, values as never) as string | Html | (string | Html)[];
  };
  return {
    locale,
    lang,
    dir: textDirection(locale),
    t: (key, values = {}) => {
      const out = format(key, values);
      return Array.isArray(out) ? out.map(String).join('') : String(out);
    },
    html: (key, values = {}, tags = {}) => {
      const escaped: Record<string, unknown> = { ...values };
      for (const [name, value] of Object.entries(values)) {
        if (typeof value === 'string') escaped[name] = new Html(escapeHtml(value));
      }
      for (const [name, wrap] of Object.entries(tags)) {
        escaped[name] = (chunks: (string | Html)[]) => wrap(new Html(chunks.map(part).join('')));
      }
      const out = format(key, escaped);
      return new Html((Array.isArray(out) ? out : [out]).map(part).join(''));
    },
    money: (minor, currency) => formatForBuyer(minor, currency, lang),
    date: (at, style = 'long') => {
      const cacheKey = `${lang}\n${style}`;
      let f = dateFormats.get(cacheKey);
      if (!f) dateFormats.set(cacheKey, (f = new Intl.DateTimeFormat(lang, { dateStyle: style, timeZone: 'UTC' })));
      return f.format(typeof at === 'string' ? new Date(at) : at);
    },
  };
}

/** A formatted part: our own Html as it is, text escaped. */
const part = (value: string | Html) => (value instanceof Html ? value.text : escapeHtml(String(value)));
