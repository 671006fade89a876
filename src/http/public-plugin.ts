import cors from '@fastify/cors';
import { refuseNul } from './nul-check.ts';
import { checkoutStartRoute } from './routes/public/checkout-start.ts';
import type { EnvironmentContext, HttpApp } from './http-app.ts';
import { priceRoute } from './routes/public/price.ts';

/**
 * What the client script calls from any vendor's page: prices and the start of a checkout.
 * No credentials, CORS for every origin, a tighter per-address limit than the API; it exposes
 * nothing but a product's price and the checkout URL.
 */
export async function publicPlugin(app: HttpApp, { services, environment }: EnvironmentContext) {
  // A malformed preflight is answered like a good one (204) rather than with the plugin's plain-text 400.
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'POST'],
    allowedHeaders: ['content-type'],
    maxAge: 86400,
    strictPreflight: false,
  });
  refuseNul(app);
  // Each route limits itself to a tenth of the API's per-address budget (publicRouteLimit):
  // plenty for pages, little for scrapers.
  priceRoute(app, { services, environment });
  checkoutStartRoute(app, { services, environment });
}
