import type { Environment, Scope } from '../model.ts';
import { productionNotEnabled } from '../production-access.ts';
import type { CacheEntry, CredentialCache } from './credential-cache.ts';

/**
 * The scope an Authorization header grants at this environment's base URL, or undefined. A genuine
 * production credential of a vendor that does not reach production is FORBIDDEN, saying why.
 * Answered at once when the login is cached (every request of a client but one a second), else once
 * the store has been read: a promise and a turn of the event loop per request were a measurable part
 * of the API's cheapest reads (issue 38).
 */
export function authenticate(
  cache: CredentialCache,
  header: string | undefined,
  environment: Environment,
): Scope | undefined | Promise<Scope | undefined> {
  if (!header) return undefined;
  const colon = header.indexOf(':');
  if (colon <= 0 || header.length > 512) return undefined;
  const password = header.slice(colon + 1).trim();
  const entry = cache.lookup(header.slice(0, colon).trim());
  if (entry instanceof Promise) return entry.then((read) => scopeOf(cache, read, password, environment));
  return scopeOf(cache, entry, password, environment);
}

function scopeOf(cache: CredentialCache, entry: CacheEntry, password: string, environment: Environment) {
  const credential = entry.credential;
  if (
    !cache.matches(entry, password) ||
    !credential ||
    credential.revokedAt !== null ||
    credential.environment !== environment
  )
    return undefined;
  if (!entry.reaches) throw productionNotEnabled(credential.vendorId);
  return { vendorId: credential.vendorId, environment };
}
