import type { Environment, Scope } from '../model.ts';
import { productionNotEnabled } from '../production-access.ts';
import type { CacheEntry, CredentialCache } from './credential-cache.ts';

/**
 * The scope an Authorization header grants at this environment's base URL, or undefined. A genuine
 * production credential of a vendor that does not reach production is FORBIDDEN, saying why. A login
 * in the cache is answered at once, without a promise (the read path's every request asks); a
 * FORBIDDEN is then a rejected promise all the same.
 */
export function authenticate(
  cache: CredentialCache,
  header: string | undefined,
  environment: Environment,
): Scope | undefined | Promise<Scope | undefined> {
  if (!header) return undefined;
  const colon = header.indexOf(':');
  if (colon <= 0 || header.length > 512) return undefined;
  const entry = cache.lookup(header.slice(0, colon).trim());
  const password = header.slice(colon + 1).trim();
  if (entry instanceof Promise) return entry.then((found) => granted(cache, found, password, environment));
  try {
    return granted(cache, entry, password, environment);
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

function granted(cache: CredentialCache, entry: CacheEntry, password: string, environment: Environment) {
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
