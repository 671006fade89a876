import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { newId, randomToken } from '../ids.ts';
import { notFound } from '../errors.ts';
import type { Environment, Scope } from '../model.ts';
import type { Repositories, StoredCredential } from '../ports.ts';
import { productionNotEnabled, reaches } from '../production-access.ts';

/**
 * API credentials: `<API_LOGIN>:<API_PASSWORD>`, no scheme. The password has 256 random bits, is shown
 * once, and is stored only as HMAC-SHA-256 under the server secret: a stolen table reveals nothing,
 * and checking it costs microseconds, not a slow hash on every request.
 */
export interface IssuedCredential {
  id: string;
  environment: Environment;
  login: string;
  password: string;
  authorization: string;
}

export interface CredentialDeps {
  store: Pick<Repositories, 'credentials' | 'vendors'>;
  clock: Clock;
  secret: string;
}

/** How long a process trusts what it read of a login: another process's revocation takes effect here within it. */
export const CREDENTIAL_CACHE_MS = 1_000;

interface CacheEntry {
  credential: StoredCredential | undefined;
  until: number;
  /** The stored HMAC, decoded once. */
  expected: Buffer;
  /** The password last found to match, so the client's next request skips the HMAC. */
  verified: Buffer | null;
  /** Whether the credential's vendor reaches the credential's environment, as read with it. */
  reaches: boolean;
}

/**
 * Recently seen logins are cached for CREDENTIAL_CACHE_MS (docs/decisions.md §3). A revocation made
 * through this service takes effect here at once: it evicts the credential, and a lookup that read the
 * store before the revocation and finishes after it does not put its stale answer into the cache.
 * Another process (`opentill credential revoke`, another `opentill serve` on the same PostgreSQL) is
 * heard when the entry expires, within a second: one lookup per login and second is all it costs.
 */
export function credentialService(deps: CredentialDeps) {
  const hash = (password: string) => createHmac('sha256', deps.secret).update(password).digest();
  const cache = new Map<string, CacheEntry>();
  let revocations = 0;
  const UNKNOWN = Buffer.alloc(32);

  async function lookup(login: string): Promise<CacheEntry> {
    const now = deps.clock.now().getTime();
    const hit = cache.get(login);
    if (hit && hit.until > now) return hit;
    const revocationsBefore = revocations;
    const credential = await deps.store.credentials.findByLogin(login);
    // Only production asks about the vendor; the operator's enable-production is heard when the entry expires.
    const vendor =
      credential?.environment === 'production' ? await deps.store.vendors.find(credential.vendorId) : undefined;
    const entry: CacheEntry = {
      credential,
      until: now + CREDENTIAL_CACHE_MS,
      expected: credential ? Buffer.from(credential.secretHash, 'hex') : UNKNOWN,
      verified: null,
      reaches: credential?.environment === 'sandbox' || (vendor !== undefined && reaches(vendor, 'production')),
    };
    if (revocations === revocationsBefore) {
      if (cache.size > 10_000) cache.clear();
      cache.set(login, entry);
    }
    return entry;
  }

  /** Whether the password is the credential's: an HMAC, skipped for the password this entry last matched (a client sends the same one every time). */
  function matches(entry: CacheEntry, password: string): boolean {
    const given = Buffer.from(password);
    if (entry.verified && entry.verified.length === given.length && timingSafeEqual(entry.verified, given)) return true;
    const ok = timingSafeEqual(hash(password), entry.expected) && entry.credential !== undefined;
    if (ok) entry.verified = given;
    return ok;
  }

  return {
    /** A new credential; production's only for a vendor that reaches production. */
    async issue(scope: Scope): Promise<IssuedCredential> {
      if (scope.environment === 'production') {
        const vendor = await deps.store.vendors.find(scope.vendorId);
        if (!vendor) throw notFound(`Vendor ${scope.vendorId}`);
        if (!reaches(vendor, scope.environment)) throw productionNotEnabled(vendor.id);
      }
      const login = `${scope.environment === 'sandbox' ? 'test' : 'live'}_${randomToken(12)}`;
      const password = randomToken(32);
      const id = newId('credential');
      await deps.store.credentials.insert({
        id,
        vendorId: scope.vendorId,
        environment: scope.environment,
        login,
        secretHash: hash(password).toString('hex'),
        createdAt: deps.clock.now().toISOString(),
        revokedAt: null,
      });
      return { id, environment: scope.environment, login, password, authorization: `${login}:${password}` };
    },

    /**
     * The scope an Authorization header grants at this environment's base URL, or undefined. A genuine
     * production credential of a vendor that does not reach production is FORBIDDEN, saying why.
     */
    async authenticate(header: string | undefined, environment: Environment): Promise<Scope | undefined> {
      if (!header) return undefined;
      const colon = header.indexOf(':');
      if (colon <= 0 || header.length > 512) return undefined;
      const entry = await lookup(header.slice(0, colon).trim());
      const credential = entry.credential;
      if (
        !matches(entry, header.slice(colon + 1).trim()) ||
        !credential ||
        credential.revokedAt !== null ||
        credential.environment !== environment
      )
        return undefined;
      if (!entry.reaches) throw productionNotEnabled(credential.vendorId);
      return { vendorId: credential.vendorId, environment };
    },

    async revoke(scope: Scope, id: string): Promise<boolean> {
      const revoked = await deps.store.credentials.revoke(scope, id, deps.clock.now().toISOString());
      revocations++;
      for (const [login, entry] of cache) if (entry.credential?.id === id) cache.delete(login);
      return revoked;
    },

    async list(vendorId: string) {
      const all = await deps.store.credentials.listForVendor(vendorId);
      return all.map(({ secretHash: _hidden, ...rest }) => rest);
    },
  };
}

export type CredentialService = ReturnType<typeof credentialService>;
