import type { Environment, Scope } from '../model.ts';
import { productionNotEnabled } from '../production-access.ts';
import type { CredentialCache } from './credential-cache.ts';

/**
 * The scope an Authorization header grants at this environment's base URL, or undefined. A genuine
 * production credential of a vendor that does not reach production is FORBIDDEN, saying why.
 */
export async function authenticate(
  cache: CredentialCache,
  header: string | undefined,
  environment: Environment,
): Promise<Scope | undefined> {
  if (!header) return undefined;
  const colon = header.indexOf(':');
  if (colon <= 0 || header.length > 512) return undefined;
  const entry = await cache.lookup(header.slice(0, colon).trim());
  const credential = entry.credential;
  if (
    !cache.matches(entry, header.slice(colon + 1).trim()) ||
    !credential ||
    credential.revokedAt !== null ||
    credential.environment !== environment
  )
    return undefined;
  if (!entry.reaches) throw productionNotEnabled(credential.vendorId);
  return { vendorId: credential.vendorId, environment };
}
