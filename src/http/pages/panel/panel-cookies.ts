import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The panel's cookies (docs/decisions.md §19): the session, and the double-submit token of the sign-in and sign-up forms. */
export const SESSION_COOKIE = 'ot_panel';
export const LOGIN_CSRF_COOKIE = 'ot_panel_csrf';

export const cookieOf = (request: FastifyRequest, name: string) =>
  new RegExp(`(?:^|;\\s*)${name}=([A-Za-z0-9_-]{1,100})`).exec(request.headers.cookie ?? '')?.[1];

export const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Sets a cookie of the panel (path /panel) or of the operator's console (path /operator): HttpOnly,
 * SameSite=Lax, Secure when served over https. Each keeps to its own path, so neither is sent to the other.
 */
export function cookieSetter(baseUrl: string, path: '/panel' | '/operator' = '/panel') {
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  return (reply: FastifyReply, name: string, value: string, maxAgeSeconds: number) =>
    reply.header(
      'set-cookie',
      `${name}=${value}; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`,
    );
}
