import { timingSafeEqual } from 'node:crypto';
import { errorCodes, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { PRODUCT_IMAGE_MAX_BYTES, PRODUCT_IMAGE_TYPES } from '../../../domain/catalog/index.ts';
import type { Services } from '../../../services.ts';
import { describeFailure } from '../../errors-plugin.ts';
import type { HttpApp } from '../../http-app.ts';
import { sendProblem } from '../layout.ts';
import { LOGO_CSRF_HEADER } from './logo-upload.ts';

/** Where the Products page's script sends a product's image (`?env=…&id=…`). */
export const PRODUCT_IMAGE_UPLOAD_PATH = '/panel/products/image';

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The answers a refused upload gets, worded for a product image rather than for a form. */
const WORDING: Partial<Record<string, [title: string, text: string]>> = {
  UNSUPPORTED_MEDIA_TYPE: [
    'Not a form or a product image',
    'A product image must be a PNG, JPEG or WebP image, sent as image/png, image/jpeg or image/webp.',
  ],
  BODY_TOO_LARGE: ['The image is too large', 'A product image may have 1 MB at most.'],
};

function sendImageError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const described = describeFailure(request, err);
  const [title, text] = WORDING[described.error] ?? ['The image was not saved', described.message];
  if (described.retryAfterSeconds !== undefined) reply.header('retry-after', String(described.retryAfterSeconds));
  void sendProblem(reply, described.status, title, text);
}

/**
 * A product's image, from the Products page (docs/decisions.md §42): the raw image, 1 MB at most (more
 * than a page form's 64 KB), with the session's anti-forgery token in the `x-csrf-token` header, as the
 * logo's upload does. Its own scope, so no other page takes an image. 204 when saved; refusals are problem
 * pages: 401 signed out, 403 without the token, 404 not a product of this vendor and environment, 400 when
 * the bytes are not a PNG, JPEG or WebP of a sane size (whatever type they were sent as), 413, 415.
 */
export function registerProductImageUpload(
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
      [...PRODUCT_IMAGE_TYPES],
      { parseAs: 'buffer', bodyLimit: PRODUCT_IMAGE_MAX_BYTES },
      (_request, body, done) => done(null, { image: body }),
    );
    scope.addContentTypeParser('*', (_request, _payload, done) => {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
    });
    scope.post(
      PRODUCT_IMAGE_UPLOAD_PATH,
      { schema: { hide: true }, bodyLimit: PRODUCT_IMAGE_MAX_BYTES, errorHandler: sendImageError },
      async (request, reply) => {
        const session = await sessionOf(request);
        if (!session)
          return sendProblem(reply, 401, 'Not signed in', 'Sign in to the panel again, then upload the image.');
        const token = request.headers[LOGO_CSRF_HEADER];
        if (typeof token !== 'string' || !same(token, session.csrfToken)) {
          return sendProblem(reply, 403, 'Refused', 'This page has expired. Reload it and upload the image again.');
        }
        const query = request.query as { env?: string; id?: string };
        const scopeOf = {
          vendorId: session.user.vendorId,
          environment: query.env === 'production' ? ('production' as const) : ('sandbox' as const),
        };
        await services.catalog.requireEnvironment(scopeOf);
        const image = (request.body as { image?: Buffer } | undefined)?.image;
        if (!image)
          return sendProblem(reply, 415, WORDING.UNSUPPORTED_MEDIA_TYPE![0], WORDING.UNSUPPORTED_MEDIA_TYPE![1]);
        await services.catalog.setProductImage(scopeOf, query.id ?? '', image);
        return reply.code(204).header('cache-control', 'no-store').send();
      },
    );
  });
}
