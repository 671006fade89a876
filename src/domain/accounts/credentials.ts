import { createHmac } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Environment, Scope } from '../model.ts';
import type { Repositories } from '../ports.ts';
import { authenticate } from './credential-authentication.ts';
import { credentialCache } from './credential-cache.ts';
import { issueCredential, listCredentials } from './credential-issuing.ts';

export { CREDENTIAL_CACHE_MS } from './credential-cache.ts';
export type { IssuedCredential } from './credential-issuing.ts';

export interface CredentialDeps {
  store: Pick<Repositories, 'credentials' | 'vendors'>;
  clock: Clock;
  secret: string;
}

/** API credentials over one store and server secret: issued, checked through a short cache (credential-cache.ts), revoked. */
export function credentialService(deps: CredentialDeps) {
  const hash = (password: string) => createHmac('sha256', deps.secret).update(password).digest();
  const cache = credentialCache(deps, hash);
  return {
    issue: (scope: Scope) => issueCredential(deps, hash, scope),
    authenticate: (header: string | undefined, environment: Environment) => authenticate(cache, header, environment),
    /** Revokes in the store, then evicts from this process's cache: the revocation takes effect here at once. */
    async revoke(scope: Scope, id: string): Promise<boolean> {
      const revoked = await deps.store.credentials.revoke(scope, id, deps.clock.now().toISOString());
      cache.revoked(id);
      return revoked;
    },
    list: (vendorId: string) => listCredentials(deps, vendorId),
  };
}

export type CredentialService = ReturnType<typeof credentialService>;
