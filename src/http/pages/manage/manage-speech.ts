import type { FastifyReply } from 'fastify';
import type { MessageValues, Translator } from '../../../i18n/index.ts';
import { speechOf } from '../buyer-language.ts';
import { sendProblem } from '../layout.ts';

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
