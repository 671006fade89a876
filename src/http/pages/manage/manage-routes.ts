import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { actOnPurchase } from './manage-actions.ts';
import { registerOpenSignIn } from './manage-open.ts';
import { registerProcessorEndpoints } from './manage-processor-routes.ts';
import { registerSignIn } from './manage-sign-in.ts';
import { showPurchases, type PurchasesQuery } from './manage-purchases.ts';

/**
 * The customer's management page behind the URL of generate-url-to-manage-transactions. The signed
 * link is the customer's credential (one hour); its forms carry a token derived from it, so another
 * site cannot submit them.
 *
 * With a processor that takes cards in the browser (its script and element), two JSON endpoints
 * under the page serve its script, with the page's form token: `authentication/session` (the client secret
 * of a renewal the bank holds for 3-D Secure, which the customer confirms in the processor's frame)
 * and `card/session` (a card setup session for a new card). The page's form then posts what came of
 * it (`authenticated`, `card-complete`), and the processor is asked, never the browser believed.
 * When the processor sends the customer away and back (a redirect method), the same outcomes come
 * back as the query of the page (`confirmed`, `cardSession`).
 */
export function registerManagePage(app: HttpApp, context: EnvironmentContext) {
  app.get<{ Params: { token: string }; Querystring: PurchasesQuery }>(
    '/manage/:token',
    { schema: { hide: true } },
    (request, reply) => showPurchases(context, reply, request.params.token, request.query),
  );
  app.post<{ Params: { token: string }; Body: FormBody }>(
    '/manage/:token',
    { schema: { hide: true } },
    (request, reply) => actOnPurchase(context, reply, request.params.token, request.body),
  );
  registerProcessorEndpoints(app, context);
  registerSignIn(app, context);
  registerOpenSignIn(app, context);
}
