import type { Mutant } from './mutant.ts';

const ISOLATION = 'test/api/auth-and-isolation.test.ts';
const REVOCATION = 'test/api/credential-revocation.test.ts';
const CLOCK_PROCESSES = 'test/api/sandbox-clock-processes.test.ts';
const HOOK = 'src/http/v1-authentication.ts';

/**
 * Mutants of the v1 API's authentication, whose common case passes without a promise (issue 38): the
 * mistakes a synchronous fast path invites, each on the path most requests now take.
 */
export const authenticationMutants: Mutant[] = [
  {
    id: 'auth-fast-path-skips-credential-limit',
    file: HOOK,
    find: 'const limit = byKey ? UNLIMITED : perCredential(request);',
    replace: 'const limit = UNLIMITED;',
    tests: [ISOLATION],
  },
  {
    id: 'auth-fast-path-skips-sandbox-clock',
    file: HOOK,
    find: "if (environment === 'sandbox' && !request.routeOptions.config.timeless)",
    replace: "if (environment === 'sandbox' && !request.routeOptions.config.timeless && false)",
    tests: [CLOCK_PROCESSES],
  },
  {
    id: 'credential-cache-never-expires',
    file: 'src/domain/accounts/credential-cache.ts',
    find: 'if (hit && hit.until > now) return hit;',
    replace: 'if (hit) return hit;',
    tests: [REVOCATION],
  },
  {
    id: 'auth-cached-entry-skips-revocation',
    file: 'src/domain/accounts/credential-authentication.ts',
    find: '    credential.revokedAt !== null ||\n',
    replace: '',
    tests: [REVOCATION],
  },
];
