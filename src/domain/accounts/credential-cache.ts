import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Repositories, StoredCredential } from '../ports.ts';
import { reaches } from '../production-access.ts';

/** How long a process trusts what it read of a login: another process's revocation takes effect here within it. */
export const CREDENTIAL_CACHE_MS = 1_000;

export interface CacheEntry {
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
export function credentialCache(
  deps: { store: Pick<Repositories, 'credentials' | 'vendors'>; clock: Clock },
  hash: (password: string) => Buffer,
) {
  const cache = new Map<string, CacheEntry>();
  let revocations = 0;
  const UNKNOWN = Buffer.alloc(32);

  /** A login read from the store, cached unless a revocation came while it was read. */
  async function read(login: string, now: number): Promise<CacheEntry> {
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

  return {
    /** The login's entry: at once when cached (no promise: issue 38's reads), else once the store answers. */
    lookup(login: string): CacheEntry | Promise<CacheEntry> {
      const now = deps.clock.now().getTime();
      const hit = cache.get(login);
      if (hit && hit.until > now) return hit;
      return read(login, now);
    },

    /** Whether the password is the credential's: an HMAC, skipped for the password this entry last matched (a client sends the same one every time). */
    matches(entry: CacheEntry, password: string): boolean {
      const given = Buffer.from(password);
      if (entry.verified && entry.verified.length === given.length && timingSafeEqual(entry.verified, given))
        return true;
      const ok = timingSafeEqual(hash(password), entry.expected) && entry.credential !== undefined;
      if (ok) entry.verified = given;
      return ok;
    },

    /** After the store revoked credential `id`: evicts it, and keeps lookups still under way from caching what they read. */
    revoked(id: string): void {
      revocations++;
      for (const [login, entry] of cache) if (entry.credential?.id === id) cache.delete(login);
    },
  };
}

export type CredentialCache = ReturnType<typeof credentialCache>;
