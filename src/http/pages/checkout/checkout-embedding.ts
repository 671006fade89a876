import type { FastifyRequest } from 'fastify';
import { requireOrigin } from '../../../domain/validation.ts';
import { pageScript } from '../page-scripts.ts';

/**
 * Where the checkout is shown (docs/decisions.md §14). The client script opens it with `embedded=1`
 * and `origin`, the origin of the vendor's page. Only a page of that origin may frame it
 * (`frame-ancestors`), and only that origin hears from it; without an origin nobody may frame it.
 */
export interface Embedding {
  /** Inside the overlay: a Close button, and messages to the parent page. */
  embedded: boolean;
  /** The embedding page's origin, canonical (`scheme://host[:port]`), or null. */
  origin: string | null;
}

export function embeddingOf(request: FastifyRequest): Embedding {
  const query = request.query as Record<string, unknown>;
  let origin: string | null = null;
  try {
    if (typeof query.origin === 'string' && query.origin.length <= 300) origin = requireOrigin(query.origin);
  } catch {
    // Not an http(s) origin: as if none was announced.
  }
  return { embedded: query.embedded === '1' && origin !== null, origin };
}

export const frameAncestorsOf = (embedding: Embedding) => embedding.origin ?? "'none'";

/**
 * The embedding (and the buyer's explicit language) as a query string, for the checkout's links to its own
 * pages (`?embedded=1&origin=…&locale=…`, or nothing).
 */
export function embeddingQuery(embedding: Embedding, locale?: string): string {
  const query = new URLSearchParams();
  if (embedding.origin) {
    if (embedding.embedded) query.set('embedded', '1');
    query.set('origin', embedding.origin);
  }
  if (locale) query.set('locale', locale);
  const search = query.toString();
  return search ? `?${search}` : '';
}

/**
 * What a checkout page inside the overlay tells the vendor's page (src/http/pages/browser/embed.ts):
 * `ready`, then `message` (`paid`, `failed`) if any, at the announced origin only. Nothing outside the overlay.
 */
export const embedMessages = (embedding: Embedding, message: object | null = null) =>
  embedding.embedded && embedding.origin
    ? { script: pageScript('embed'), data: { 'opentill-embed': { origin: embedding.origin, message } } }
    : {};
