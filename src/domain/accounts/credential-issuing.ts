import type { Clock } from '../clock.ts';
import { notFound } from '../errors.ts';
import { newId, randomToken } from '../ids.ts';
import type { Environment, Scope } from '../model.ts';
import type { Repositories } from '../ports.ts';
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

/** A new credential; production's only for a vendor that reaches production. */
export async function issueCredential(
  deps: { store: Pick<Repositories, 'credentials' | 'vendors'>; clock: Clock },
  hash: (password: string) => Buffer,
  scope: Scope,
): Promise<IssuedCredential> {
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
}

/** A vendor's credentials, without their stored HMAC. */
export async function listCredentials(deps: { store: Pick<Repositories, 'credentials'> }, vendorId: string) {
  const all = await deps.store.credentials.listForVendor(vendorId);
  return all.map(({ secretHash: _hidden, ...rest }) => rest);
}
