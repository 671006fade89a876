import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveLocale, translator, type MessageValues, type Translator } from '../../../i18n/index.ts';
import { sendProblem, type Speech } from '../layout.ts';

/**
 * The language of a portal page (docs/decisions.md §32, §34): `?locale=`, else the language the
 * customer bought in (the transaction's), else Accept-Language, else English.
 */
export function pageTranslator(request: FastifyRequest, stored?: string | null): Translator {
  const query = (request.query ?? {}) as Record<string, string | undefined>;
  return translator(resolveLocale([query.locale, stored], request.headers['accept-language']));
}

export const speechOf = (tr: Translator): Speech => ({ lang: tr.lang, dir: tr.dir });

/** A problem page in the reader's language: title and text are "manage." keys. */
export function sendManageProblem(
  reply: FastifyReply,
  tr: Translator,
  status: number,
  title: string,
  text: string,
  values: MessageValues = {},
) {
  return sendProblem(
    reply,
    status,
    tr.t(`manage.${title}`, values),
    tr.t(`manage.${text}`, values),
    undefined,
    speechOf(tr),
  );
}
