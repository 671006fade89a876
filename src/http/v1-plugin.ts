import type {} from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { idempotencyHooks } from './idempotency.ts';
import { licenceKeyAccess } from './licence-key-access.ts';
import { refuseNul } from './nul-check.ts';
import { limitEachKey } from './rate-limits.ts';
import { cancelSubscriptionRoute } from './routes/v1/cancel-subscription.ts';
import { changedTransactionRoutes } from './routes/v1/changed-transactions.ts';
import { chargeVaultedRoute } from './routes/v1/charge-vaulted.ts';
import { checkLicenceRoute } from './routes/v1/check-licence.ts';
import { pauseSubscriptionRoutes } from './routes/v1/pause-subscription.ts';
import { couponRoutes } from './routes/v1/coupons.ts';
import { customizeProductRoute } from './routes/v1/customize-product.ts';
import { hostedUrlRoutes } from './routes/v1/hosted-urls.ts';
import { licenceRoutes } from './routes/v1/licences.ts';
import { productRoutes } from './routes/v1/products.ts';
import { readTransactionRoutes } from './routes/v1/read-transactions.ts';
import { refundTransactionRoute } from './routes/v1/refund-transaction.ts';
import { sandboxClockRoutes } from './routes/v1/sandbox-clock.ts';
import { updateTransactionRoutes } from './routes/v1/update-transaction.ts';
import { updateQuantityRoute } from './routes/v1/update-quantity.ts';
import type { EnvironmentContext, HttpApp } from './http-app.ts';

const ROUTES = [
  hostedUrlRoutes,
  readTransactionRoutes,
  updateTransactionRoutes,
  cancelSubscriptionRoute,
  pauseSubscriptionRoutes,
  refundTransactionRoute,
  changedTransactionRoutes,
  customizeProductRoute,
  productRoutes,
  couponRoutes,
  chargeVaultedRoute,
  checkLicenceRoute,
  licenceRoutes,
  sandboxClockRoutes,
  updateQuantityRoute,
];

const loginOf = (request: FastifyRequest) => {
  const header = request.headers.authorization ?? '';
  const colon = header.indexOf(':');
  return colon > 0 ? header.slice(0, Math.min(colon, 128)) : '';
};

/** The v1 API of one environment: authentication, per-credential limits, idempotency, routes. */
export async function v1Plugin(app: HttpApp, context: EnvironmentContext) {
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
  const idempotency = idempotencyHooks(services.idempotency);
  const keyAccess = licenceKeyAccess(app, context);

  app.decorateRequest('scope', null as never);
  app.decorateRequest('idempotencyKey', null);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    // A licence key sent alone (licence-key-access.ts) is limited per address, not per credential.
    const keyScope = await keyAccess(request);
    const scope = keyScope ?? (await services.credentials.authenticate(request.headers.authorization, environment));
    if (!scope) {
      // Only failures count, so a vendor with a valid credential is never locked out by an attacker.
      const failures = await authFailures(request);
      if (!failures.isAllowed && failures.isExceeded) {
        throw new AppError(
          'RATE_LIMITED',
          'Too many failed authentication attempts from this address; wait and retry.',
          {
            retryAfterSeconds: failures.ttlInSeconds,
          },
        );
      }
      const missing = !request.headers.authorization;
      throw new AppError(
        'UNAUTHORIZED',
        missing
          ? 'The Authorization header is missing. Send "Authorization: <API_LOGIN>:<API_PASSWORD>" with the credentials of this environment.'
          : `The Authorization header is not a valid ${environment} credential ("<API_LOGIN>:<API_PASSWORD>", no scheme).`,
      );
    }
    let limit = keyScope ? { exceeded: false, retryAfterSeconds: 0 } : perCredential(request);
    if (limit instanceof Promise) limit = await limit;
    if (limit.exceeded) {
      throw new AppError(
        'RATE_LIMITED',
        `This credential sent more than ${limits.perCredentialPerMinute} requests in a minute; retry later.`,
        {
          retryAfterSeconds: limit.retryAfterSeconds,
        },
      );
    }
    // The sandbox's time is the vendor's clock as stored, whichever process moved it last; a read
    // of stored records asks nothing of the time, so it is spared that read.
    if (environment === 'sandbox' && !request.routeOptions.config.timeless)
      await services.sandboxClock.load(scope.vendorId);
    request.scope = scope;
  });
  refuseNul(app);
  // Idempotency concerns POSTs only: reads skip both hooks entirely.
  app.addHook('onRoute', (route) => {
    if (route.method !== 'POST') return;
    route.preHandler = [idempotency.preHandler, ...[route.preHandler ?? []].flat()];
    route.onSend = [idempotency.onSend, ...[route.onSend ?? []].flat()];
  });

  for (const register of ROUTES) register(app, context);
}
