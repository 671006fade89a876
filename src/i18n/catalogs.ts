import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { DEFAULT_LOCALE, PSEUDO_LOCALE, type Locale } from './locales.ts';

/*
 * The message catalogs: src/i18n/catalogs/<surface>/<locale>.json, flat ICU MessageFormat strings.
 * A surface is one part of what a buyer reads (checkout, manage, email, document, common), so each can
 * be written and reviewed on its own; a key is used as "<surface>.<key>". A catalog is read the first
 * time its locale is needed, never at start: most servers speak a few languages.
 */

const ROOT = fileURLToPath(new URL('./catalogs/', import.meta.url));

/** A catalog file: flat ICU MessageFormat strings by key. */
export type Catalog = Record<string, string>;
/** Every message of a locale, by "<surface>.<key>": a string, or already parsed (the pseudo-locale). */
export type Messages = Record<string, string | MessageFormatElement[]>;

/** The surfaces, read from the folder (each is a directory of catalogs). */
export const SURFACES: readonly string[] = readdirSync(ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** One surface's catalog in one locale, as written (unprefixed keys); {} when the file does not exist. */
export function readCatalog(surface: string, locale: string): Catalog {
  let text: string;
  try {
    text = readFileSync(`${ROOT}${surface}/${locale}.json`, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  return JSON.parse(text) as Catalog;
}

const loaded = new Map<Locale, Messages>();

/** Every surface's messages in a locale, keys prefixed by surface. The pseudo-locale is made from English. */
export function messagesOf(locale: Locale): Messages {
  let catalog = loaded.get(locale);
  if (!catalog) {
    if (locale === PSEUDO_LOCALE) catalog = pseudoMessages(messagesOf(DEFAULT_LOCALE));
    else {
      catalog = {};
      for (const surface of SURFACES) {
        for (const [key, message] of Object.entries(readCatalog(surface, locale)))
          catalog[`${surface}.${key}`] = message;
      }
    }
    loaded.set(locale, catalog);
  }
  return catalog;
}

const ACCENTED: Record<string, string> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((c, i) => [
    c,
    [...'àƀçđéƒĝĥíĵķĺɱñöƥʠŕšţûʋŵẋýžÀßÇĐÉƑĜĤÍĴĶĹṀÑÖƤɊŔŠŢÛṼŴẊÝŽ'][i]!,
  ]),
);

const accent = (text: string) => [...text].map((c) => ACCENTED[c] ?? c).join('');

/** Letters of a message's literal text, for the 40% it is lengthened by. */
function letters(elements: MessageFormatElement[]): number {
  let count = 0;
  for (const element of elements) {
    if (element.type === TYPE.literal) count += element.value.replace(/\s/g, '').length;
    if (element.type === TYPE.tag) count += letters(element.children);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      count += Math.max(...Object.values(element.options).map((option) => letters(option.value)));
    }
  }
  return count;
}

function pseudoElements(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((element) => {
    if (element.type === TYPE.literal) return { ...element, value: accent(element.value) };
    if (element.type === TYPE.tag) return { ...element, children: pseudoElements(element.children) };
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      const options = Object.fromEntries(
        Object.entries(element.options).map(([k, option]) => [k, { ...option, value: pseudoElements(option.value) }]),
      );
      return { ...element, options } as MessageFormatElement;
    }
    return element;
  });
}

/** The pseudo-locale: every English message with its literal text accented and 40% longer, placeholders kept. */
function pseudoMessages(english: Messages): Messages {
  const out: Messages = {};
  for (const [key, message] of Object.entries(english)) {
    const elements = typeof message === 'string' ? parse(message) : message;
    // The length is added as words at the end, so it wraps as real text would.
    const pad = Math.ceil(letters(elements) * 0.4);
    const words = pad ? ` ${'ẋẋẋẋ '.repeat(Math.ceil(pad / 4)).trim()}` : '';
    out[key] = [...pseudoElements(elements), { type: TYPE.literal, value: words }];
  }
  return out;
}
