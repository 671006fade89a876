import type { FastifyRequest } from 'fastify';
import { resolveLocale, supportedLocale, translator, type Translator } from '../../i18n/index.ts';
import type { Speech } from './layout.ts';

/*
 * The language of a buyer's page, checkout and portal alike (docs/decisions.md §32-§34): `?locale=` on
 * its URL (the client script's `data-ts-locale` and `tc.buy(id, {locale})` arrive that way), else the
 * language the purchase was made in, else Accept-Language, else English. The panel stays English.
 */

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The buyer's explicit choice on this request's URL, when it is one we speak; else undefined. */
export function explicitLocale(request: FastifyRequest): string | undefined {
  return supportedLocale(text((request.query as Record<string, unknown>).locale), { allowPseudo: true });
}

/** The translator of the buyer of this request; `stored` is the locale a purchase was made in. */
export function buyerTranslator(request: FastifyRequest, stored?: string | null): Translator {
  return translator(resolveLocale([explicitLocale(request), stored], request.headers['accept-language']));
}

/** What `<html lang dir>` says. */
export const speechOf = (tr: Translator): Speech => ({ lang: tr.lang, dir: tr.dir });
