import type {} from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { Scope } from '../domain/model.ts';
import type { EnvironmentContext, HttpApp } from './http-app.ts';
import { licenceKeyAccess } from './licence-key-access.ts';
import { limitEachKey, type Checked } from './rate-limits.ts';

const UNLIMITED: Checked = { exceeded: false, retryAfterSeconds: 0 };

const loginOf = (request: FastifyRequest) => {
  const header = request.headers.authorization ?? '';
  const colon = header.indexOf(':');
  return colon > 0 ? header.slice(0, Math.min(colon, 128)) : '';
};

/**
 * The v1 API's onRequest hook: the request's scope from its credential (or, on a licence route sent
 * without one, from the licence key in its path), within the credential's limit, with the sandbox
 * vendor's clock loaded where the route asks the time. A request whose credential, count and clock are
 * all in this process goes on at once, without a promise: on the cheapest reads each promise and turn
 * of the event loop was a measurable share of the time (issue 38); the rest go on when the store or
 * Redis answers.
 */
export function authenticationHook(app: HttpApp, context: EnvironmentContext) {
  const { services, environment } = context;
  const limits = services.config.rateLimit;
  const redis = services.config.redis !== undefined;
  const perCredential = limitEachKey(app, { redis, max: limits.perCredentialPerMinute, keyOf: loginOf, name: 'cred' });
  const authFailures = app.createRateLimit({
    max: limits.authFailuresPerMinute,
    timeWindow: 60_000,
    keyGenerator: (r) => `authfail:${r.ip}`,
  });
  const keyAccess = licenceKeyAccess(app, context);

  // Only failures count, so a vendor with a valid credential is never locked out by an attacker.
  const refused = async (request: FastifyRequest): Promise<never> => {
    const failures = await authFailures(request);
    if (!failures.isAllowed && failures.isExceeded)
      throw new AppError('RATE_LIMITED', 'Too many failed authentication attempts from this address; wait and retry.', {
        retryAfterSeconds: failures.ttlInSeconds,
      });
    throw new AppError(
      'UNAUTHORIZED',
      !request.headers.authorization
        ? 'The Authorization header is missing. Send "Authorization: <API_LOGIN>:<API_PASSWORD>" with the credentials of this environment.'
        : `The Authorization header is not a valid ${environment} credential ("<API_LOGIN>:<API_PASSWORD>", no scheme).`,
    );
  };
  const admitted = (request: FastifyRequest, scope: Scope, limit: Checked): void | Promise<void> => {
    if (limit.exceeded)
      throw new AppError(
        'RATE_LIMITED',
        `This credential sent more than ${limits.perCredentialPerMinute} requests in a minute; retry later.`,
        { retryAfterSeconds: limit.retryAfterSeconds },
      );
    // The sandbox's time is the vendor's clock as stored, whichever process moved it last; a read
    // of stored records asks nothing of the time, so it is spared that read.
    if (environment === 'sandbox' && !request.routeOptions.config.timeless)
      return services.sandboxClock.load(scope.vendorId).then(() => void (request.scope = scope));
    request.scope = scope;
  };
  // A licence key sent alone (licence-key-access.ts) is limited per address, not per credential.
  const limited = (request: FastifyRequest, scope: Scope | undefined, byKey: boolean): void | Promise<void> => {
    if (!scope) return refused(request);
    const limit = byKey ? UNLIMITED : perCredential(request);
    if (limit instanceof Promise) return limit.then((counted) => admitted(request, scope, counted));
    return admitted(request, scope, limit);
  };
  const authenticated = (request: FastifyRequest): void | Promise<void> => {
    const byKey = keyAccess(request);
    if (byKey) return byKey.then((scope) => limited(request, scope, true));
    const scope = services.credentials.authenticate(request.headers.authorization, environment);
    if (scope instanceof Promise) return scope.then((found) => limited(request, found, false));
    return limited(request, scope, false);
  };

  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    let pending: void | Promise<void>;
    try {
      pending = authenticated(request);
    } catch (error) {
      return done(error as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  };
}
