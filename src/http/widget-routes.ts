import type { FastifyInstance } from 'fastify';
import { loadWidgets } from '../widget/load.ts';

/**
 * The client script (docs/decisions.md §14) at /latest/widget.min.js and /latest/widget.sandbox.min.js, loaded
 * (or, from the sources, built) once when the app starts. "latest" changes with every upgrade, so browsers keep it a day at most
 * (and may use a stale copy for a week while they fetch the new one); ETag revalidation is free.
 * Any origin may load it. A browser that accepts gzip gets the copy gzipped when the bundle was made,
 * with its own ETag (opentill sends no other answer compressed: a reverse proxy may).
 */
export async function registerWidgetRoutes(app: FastifyInstance) {
  const bundles = await loadWidgets();
  for (const [file, bundle] of Object.entries(bundles)) {
    app.get(`/latest/${file}`, { schema: { hide: true } }, async (request, reply) => {
      const gzipped = acceptsGzip(request.headers['accept-encoding']);
      const etag = gzipped ? bundle.gzipEtag : bundle.etag;
      reply
        .header('cache-control', 'public, max-age=86400, stale-while-revalidate=604800')
        .header('etag', etag)
        .header('vary', 'accept-encoding')
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff');
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      if (gzipped) reply.header('content-encoding', 'gzip');
      return reply.type('application/javascript; charset=utf-8').send(gzipped ? bundle.gzip : bundle.code);
    });
  }
}

/**
 * Whether Accept-Encoding takes gzip (RFC 9110 12.5.3): `gzip` (or `x-gzip`), else `*`, with a q above 0;
 * `gzip;q=0` refuses it whatever `*` says.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [coding = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    weights.set(coding, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  return (weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*') ?? 0) > 0;
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `*`, or any listed tag, W/ or not. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
