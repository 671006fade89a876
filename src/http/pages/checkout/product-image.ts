import { type HttpApp } from '../../http-app.ts';
import type { CheckoutContext } from './checkout-context.ts';

/** A year: the URL names the image's version, so a new image is a new URL and an old one never changes. */
const CACHE_FOR_GOOD = 'public, max-age=31536000, immutable';

/**
 * A product's image, public as its checkout is (docs/decisions.md §42): found by the product's id in
 * this environment and the image's version, so another environment's path, another product's id or
 * an old version is 404. Sent as the type its bytes were sniffed as, never sniffed again by the
 * browser, and under a policy that lets nothing in it run (an SVG or HTML could not get here, and
 * would not run if it did).
 */
export function registerProductImage(app: HttpApp, ctx: CheckoutContext) {
  app.get<{ Params: { productId: string; version: string } }>(
    '/payment/product/:productId/image/:version',
    { schema: { hide: true } },
    async (request, reply) => {
      const { productId, version } = request.params;
      const image = await ctx.services.catalog.readProductImage(ctx.environment, productId, version);
      return reply
        .header('content-type', image.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'same-site')
        .header('cache-control', CACHE_FOR_GOOD)
        .header('etag', `"${image.version}"`)
        .send(Buffer.from(image.bytes));
    },
  );
}
