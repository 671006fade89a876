import type {} from '@fastify/swagger';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { LinkPurpose } from '../domain/hosted-links.ts';
import type { Environment } from '../domain/model.ts';
import { formatMinor } from '../domain/money.ts';
import type { Services } from '../services.ts';

/**
 * The pages behind the temporary URLs. The real pages come with the checkout and panel issues; for
 * now each URL resolves to a small page that already checks its token: valid, expired or forged.
 */
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(reply: FastifyReply, status: number, title: string, text: string) {
  return reply
    .code(status)
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · opentill</title>` +
        `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}h1{font-size:1.4rem}</style></head>` +
        `<body><main><h1>${escape(title)}</h1><p>${escape(text)}</p></main></body></html>`,
    );
}

const TITLES: Record<LinkPurpose, string> = { manage: 'Your purchases', admin: 'Transactions admin' };

export function registerHostedPages(app: FastifyInstance, services: Services, environment: Environment) {
  for (const purpose of ['manage', 'admin'] as const) {
    app.get<{ Params: { token: string } }>(`/${purpose}/:token`, { schema: { hide: true } }, async (request, reply) => {
      const check = services.links.check(request.params.token, purpose, services.clock.now());
      if (check.status === 'expired') return page(reply, 410, 'This link has expired', 'Ask for a new link: these links work for a limited time.');
      if (check.status === 'invalid' || check.claims.environment !== environment) {
        return page(reply, 404, 'This link is not valid', 'Check that you copied the whole link, or ask for a new one.');
      }
      return page(reply, 200, TITLES[purpose], purpose === 'manage' ? `Signed in as ${check.claims.subject}. This page is being built.` : 'This page is being built.');
    });
  }

  app.get<{ Params: { productId: string } }>('/payment/product/:productId', { schema: { hide: true } }, async (request, reply) => {
    // Payment links carry no vendor: the product id is unguessable and names its vendor itself.
    const productId = request.params.productId;
    const vendorId = await services.store.products.ownerOf(productId, environment);
    const owner = vendorId ? { vendorId, environment } : undefined;
    if (!owner) return page(reply, 404, 'Product not found', 'This payment link does not lead to a product.');
    try {
      const { product } = await services.catalog.resolveOffer(owner, productId);
      const usd = product.prices.USD ?? 0;
      return page(reply, 200, product.name, `${formatMinor(usd, 'USD')} USD. The checkout page is being built.`);
    } catch (err) {
      if (err instanceof AppError && err.code === 'LINK_EXPIRED') return page(reply, 410, 'This link has expired', err.message);
      if (err instanceof AppError && err.code === 'NOT_FOUND') return page(reply, 404, 'Product not found', 'This payment link does not lead to a product.');
      throw err;
    }
  });
}
