import type { FastifyInstance } from 'fastify';
import { loadWidgets } from '../widget/load.ts';

/**
 * The client script (docs/decisions.md §14) at /latest/widget.min.js and /latest/widget.sandbox.min.js, loaded
 * (or, from the sources, built) once when the app starts. "latest" changes with every upgrade, so browsers keep it a day at most
 * (and may use a stale copy for a week while they fetch the new one); ETag revalidation is free.
 * Any origin may load it.
 */
export async function registerWidgetRoutes(app: FastifyInstance) {
  const bundles = await loadWidgets();
  for (const [file, bundle] of Object.entries(bundles)) {
    app.get(`/latest/${file}`, { schema: { hide: true } }, async (request, reply) => {
      reply
        .header('cache-control', 'public, max-age=86400, stale-while-revalidate=604800')
        .header('etag', bundle.etag)
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff');
      if (matchesEtag(request.headers['if-none-match'], bundle.etag)) return reply.code(304).send();
      return reply.type('application/javascript; charset=utf-8').send(bundle.code);
    });
  }
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `*`, or any listed tag, W/ or not. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
