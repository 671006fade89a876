import { idempotencyHooks } from './idempotency.ts';
import { refuseNul } from './nul-check.ts';
import { authenticationHook } from './v1-authentication.ts';
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

/** The v1 API of one environment: authentication, per-credential limits, idempotency, routes. */
export async function v1Plugin(app: HttpApp, context: EnvironmentContext) {
  const { services } = context;
  const idempotency = idempotencyHooks(services.idempotency);

  app.decorateRequest('scope', null as never);
  app.decorateRequest('idempotencyKey', null);

  app.addHook('onRequest', authenticationHook(app, context));
  refuseNul(app);
  // Idempotency concerns POSTs only: reads skip both hooks entirely.
  app.addHook('onRoute', (route) => {
    if (route.method !== 'POST') return;
    route.preHandler = [idempotency.preHandler, ...[route.preHandler ?? []].flat()];
    route.onSend = [idempotency.onSend, ...[route.onSend ?? []].flat()];
  });

  for (const register of ROUTES) register(app, context);
}
