import { errorCodes, type FastifyInstance } from 'fastify';

/** What a page's form posts: field name to value, always a string (the last one wins for a repeated name). */
export type FormBody = Record<string, string | undefined>;

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
export const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The pages' one body parser, registered once on the scope that holds the pages: a page takes what a
 * browser's form sends and nothing else. The app's JSON parser is not inherited.
 * - `application/x-www-form-urlencoded` (64 KB at most) becomes field name → string. A repeated name
 *   keeps its last value, so a field is never an array, a number or an object.
 * - A POST without a body, or with an empty one whatever its Content-Type, has no form (`undefined`).
 * - Any other body (JSON, text, multipart, or one without a Content-Type) is refused with 415.
 */
export function registerFormBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    FORM_CONTENT_TYPE,
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      done(null, parseForm(body as string));
    },
  );
  // Every other content type, and a body without one. Decided from the headers: the body is not read.
  app.addContentTypeParser('*', (request, _payload, done) => {
    const length = request.headers['content-length'];
    const empty = request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
    if (empty) done(null, undefined);
    else done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
  });
}

/** The fields of a form; the object has no prototype, so no field name can reach Object's own members. */
function parseForm(text: string): FormBody {
  const form: FormBody = Object.create(null) as FormBody;
  for (const [name, value] of new URLSearchParams(text)) form[name] = value;
  return form;
}

/** An amount as a person types it into a form: "12.50", or "12,50" where a comma is the decimal mark; undefined when empty. */
export function typedAmount(text: string | undefined): string | undefined {
  const trimmed = (text ?? '').trim();
  return (/^\d+,\d+$/.test(trimmed) ? trimmed.replace(',', '.') : trimmed) || undefined;
}
