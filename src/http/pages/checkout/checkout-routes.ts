import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { registerConfirm } from './checkout-confirm.ts';
import { checkoutContext } from './checkout-context.ts';
import { registerCheckoutPage } from './checkout-page.ts';
import { registerProductImage } from './product-image.ts';
import { registerPurchase } from './checkout-purchase.ts';
import { registerQuote } from './checkout-quote.ts';
import { registerSession } from './checkout-session.ts';

/**
 * The hosted checkout at {hosted_url}/payment/product/{id}: a server-rendered form that works
 * without JavaScript, priced on the server. Submitting charges through the same purchase code as
 * the API's tools; the form's one-time token is an idempotency key, so a double submit (or a
 * reload of the POST) never pays twice, and the total the customer saw must be the total charged.
 */
export function registerCheckout(app: HttpApp, environment: EnvironmentContext) {
  const ctx = checkoutContext(app, environment);
  registerCheckoutPage(app, ctx);
  registerPurchase(app, ctx);
  registerQuote(app, ctx);
  registerSession(app, ctx);
  registerConfirm(app, ctx);
  registerProductImage(app, ctx);
}
