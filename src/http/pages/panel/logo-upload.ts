import { timingSafeEqual } from 'node:crypto';
import { errorCodes, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { LOGO_MAX_BYTES } from '../../../domain/catalog/index.ts';
import type { Services } from '../../../services.ts';
import { describeFailure } from '../../errors-plugin.ts';
import type { HttpApp } from '../../http-app.ts';
import { sendProblem } from '../layout.ts';

/** Where the Settings page's script sends the logo, and the header that carries the session's anti-forgery token. */
export const LOGO_UPLOAD_PATH = '/panel/settings/logo';
export const LOGO_CSRF_HEADER = 'x-csrf-token';
export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The answers a refused upload gets, worded for a logo rather than for a form (a problem page, as every page route answers). */
const WORDING: Partial<Record<string, [title: string, text: string]>> = {
  UNSUPPORTED_MEDIA_TYPE: [
    'Not a form or a logo image',
    'The logo must be a PNG or JPEG image, sent as image/png or image/jpeg.',
  ],
  BODY_TOO_LARGE: ['The logo is too large', `A logo may have ${LOGO_MAX_BYTES / 1024} KB at most.`],
};

function sendLogoError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const described = describeFailure(request, err);
  const [title, text] = WORDING[described.error] ?? ['The logo was not saved', described.message];
  if (described.retryAfterSeconds !== undefined) reply.header('retry-after', String(described.retryAfterSeconds));
  void sendProblem(reply, described.status, title, text);
}

/**
 * The logo of the Settings page: the raw image (`image/png` or `image/jpeg`, 100 KB at most, more than
 * a page form's 64 KB), with the session's anti-forgery token in the `x-csrf-token` header, as the
 * page's script sends it. Its own scope, so no other page takes an image and this route takes nothing
 * else (415). 204 when saved; refusals are problem pages: 401 signed out, 403 without the token, 400
 * when the bytes are not a PNG or JPEG, 413 too large, 415 another type.
 */
export function registerLogoUpload(
  app: HttpApp,
  {
    services,
    sessionOf,
  }: { services: Services; sessionOf: (request: FastifyRequest) => Promise<PanelSession | undefined> },
) {
  void app.register(async (scope: HttpApp) => {
    scope.removeAllContentTypeParsers();
    // The image as one Buffer, wrapped so the pages' input check sees one field rather than every byte.
    scope.addContentTypeParser(
      [...LOGO_TYPES],
      { parseAs: 'buffer', bodyLimit: LOGO_MAX_BYTES },
      (_request, body, done) => done(null, { image: body }),
    );
    scope.addContentTypeParser('*', (request, _payload, done) => {
      const length = request.headers['content-length'];
      const empty = request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
      if (empty) done(null, undefined);
      else done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
    });
    scope.post(
      LOGO_UPLOAD_PATH,
      { schema: { hide: true }, bodyLimit: LOGO_MAX_BYTES, errorHandler: sendLogoError },
      async (request, reply) => {
        const session = await sessionOf(request);
        if (!session)
          return sendProblem(reply, 401, 'Not signed in', 'Sign in to the panel again, then upload the logo.');
        const token = request.headers[LOGO_CSRF_HEADER];
        if (typeof token !== 'string' || !same(token, session.csrfToken)) {
          return sendProblem(reply, 403, 'Refused', 'This page has expired. Reload it and upload the logo again.');
        }
        const image = (request.body as { image?: Buffer } | undefined)?.image;
        if (!image)
          return sendProblem(reply, 415, 'Not a form or a logo image', 'Choose a PNG or JPEG file for the logo.');
        await services.catalog.updateVendorSettings(session.user.vendorId, { logo: image });
        return reply.code(204).header('cache-control', 'no-store').send();
      },
    );
  });
}
