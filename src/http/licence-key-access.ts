import type { FastifyRequest } from 'fastify';
import { AppError, notFound } from '../domain/errors.ts';
import type { Scope } from '../domain/model.ts';
import type { EnvironmentContext, HttpApp } from './http-app.ts';
import { nulIn } from './nul-check.ts';
import { limitEachNamedKey } from './rate-limits.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route may be called with a licence key in its path and no credential: the customer's app
     * has the key, never the vendor's credential (docs/decisions.md §40).
     */
    licenceKey?: boolean;
  }
}

/**
 * For a licence route sent without an Authorization header: counts the request against its client
 * address's limit (in Redis when configured, so processes count together) and answers the scope of
 * the vendor whose key the path names. Null for any other request: it authenticates as usual.
 */
export function licenceKeyAccess(app: HttpApp, { services, environment }: EnvironmentContext) {
  const max = services.config.rateLimit.licenceKeyPerAddress;
  const perAddress = limitEachNamedKey(app, { redis: services.config.redis !== undefined, max, name: 'licencekey' });
  const byKey = async (request: FastifyRequest): Promise<Scope> => {
    let limit = perAddress(request.ip, request);
    if (limit instanceof Promise) limit = await limit;
    if (limit.exceeded)
      throw new AppError(
        'RATE_LIMITED',
        `This address sent more than ${max} licence requests without a credential in a minute; retry later.`,
        { retryAfterSeconds: limit.retryAfterSeconds },
      );
    const key = (request.params as { key?: unknown }).key;
    // Read from the store before the route's own checks run (PostgreSQL refuses U+0000 in text: a 500).
    const nul = nulIn('path', request.params);
    if (nul) throw nul;
    const scope = typeof key === 'string' ? await services.licences.scopeOfKey(environment, key) : undefined;
    if (!scope) throw notFound(`Licence key ${String(key)}`);
    return scope;
  };
  // Null at once for every other request: the API's reads pass without a promise (issue 38).
  return (request: FastifyRequest): Promise<Scope> | null =>
    !request.routeOptions.config.licenceKey || request.headers.authorization !== undefined ? null : byKey(request);
}
