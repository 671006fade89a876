import type {} from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { Scope } from '../domain/model.ts';
import type { EnvironmentContext, HttpApp } from './http-app.ts';
import { licenceKeyAccess } from './licence-key-access.ts';
import { limitEachKey } from './rate-limits.ts';

/** A step that is done at once (the usual case: a cached credential, counted in memory) or later. */
type Maybe<T> = T | Promise<T>;
const then = <T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> =>
  value instanceof Promise ? value.then(next) : next(value);

const loginOf = (request: FastifyRequest) => {
  const header = request.headers.authorization ?? '';
  const colon = header.indexOf(':');
  return colon > 0 ? header.slice(0, Math.min(colon, 128)) : '';
};

/**
 * The v1 API's admission of a request: its scope (a credential, or a licence key sent alone), the
 * per-credential limit, and the sandbox clock; sets `request.scope`. A hook with a callback, whose
 * steps return plain values when they have them: a read by id with a cached credential makes no
 * promise here, and each promise was measurable per request on the read path (issue 38).
 */
export function v1Admission(app: HttpApp, context: EnvironmentContext) {
  const { services, environment } = context;
  const limits = services.config.rateLimit;
  const perCredential = limitEachKey(app, {
    redis: services.config.redis !== undefined,
    max: limits.perCredentialPerMinute,
    keyOf: loginOf,
    name: 'cred',
  });
  const authFailures = app.createRateLimit({
    max: limits.authFailuresPerMinute,
    timeWindow: 60_000,
    keyGenerator: (r) => `authfail:${r.ip}`,
  });
  const keyAccess = licenceKeyAccess(app, context);

  async function refuse(request: FastifyRequest): Promise<never> {
    // Only failures count, so a vendor with a valid credential is never locked out by an attacker.
    const failures = await authFailures(request);
    if (!failures.isAllowed && failures.isExceeded) {
      throw new AppError('RATE_LIMITED', 'Too many failed authentication attempts from this address; wait and retry.', {
        retryAfterSeconds: failures.ttlInSeconds,
      });
    }
    const missing = !request.headers.authorization;
    throw new AppError(
      'UNAUTHORIZED',
      missing
        ? 'The Authorization header is missing. Send "Authorization: <API_LOGIN>:<API_PASSWORD>" with the credentials of this environment.'
        : `The Authorization header is not a valid ${environment} credential ("<API_LOGIN>:<API_PASSWORD>", no scheme).`,
    );
  }

  function admitted(request: FastifyRequest, scope: Scope, byKey: boolean): Maybe<void> {
    const limit = byKey ? { exceeded: false, retryAfterSeconds: 0 } : perCredential(request);
    return then(limit, ({ exceeded, retryAfterSeconds }) => {
      if (exceeded) {
        throw new AppError(
          'RATE_LIMITED',
          `This credential sent more than ${limits.perCredentialPerMinute} requests in a minute; retry later.`,
          { retryAfterSeconds },
        );
      }
      request.scope = scope;
      // The sandbox's time is the vendor's clock as stored, whichever process moved it last; a read
      // of stored records asks nothing of the time, so it is spared that read.
      if (environment === 'sandbox' && !request.routeOptions.config.timeless)
        return services.sandboxClock.load(scope.vendorId);
    });
  }

  function admit(request: FastifyRequest): Maybe<void> {
    // A licence key sent alone (licence-key-access.ts) is limited per address, not per credential.
    return then(keyAccess(request), (keyScope) => {
      if (keyScope) return admitted(request, keyScope, true);
      return then(services.credentials.authenticate(request.headers.authorization, environment), (scope) =>
        scope ? admitted(request, scope, false) : refuse(request),
      );
    });
  }

  return (request: FastifyRequest, _reply: unknown, done: (err?: Error) => void) => {
    let outcome: Maybe<void>;
    try {
      outcome = admit(request);
    } catch (err) {
      return done(err as Error);
    }
    if (outcome instanceof Promise) outcome.then(() => done(), done);
    else done();
  };
}
