import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import { registerCatalogPages } from './catalog-routes.ts';
import { registerCustomerPages } from './customer-routes.ts';
import { registerDeveloperPages } from './developer-routes.ts';
import { registerEmailPages } from './email-routes.ts';
import { registerLogoUpload } from './logo-upload.ts';
import { registerOverviewPage } from './overview-routes.ts';
import { registerPanelAuth, registerSignOut } from './panel-auth-routes.ts';
import { registerPayoutPages } from './payout-routes.ts';
import { registerProductImageUpload } from './product-image-upload.ts';
import { panelRouting } from './panel-context.ts';
import { cookieOf, SESSION_COOKIE } from './panel-cookies.ts';
import { registerSettingsPages } from './settings-routes.ts';
import { registerTaxPages } from './tax-routes.ts';
import { registerTransactionPages } from './transaction-routes.ts';

/**
 * The vendor panel at {panel_url} = {base_url}/panel ({sandbox_panel_url} opens it on the sandbox):
 * sign-up and sign-in, then one page per environment with the API credentials, the products and
 * their snippets, the transactions (the admin tool), the customer e-mails and the settings.
 * Sessions are HttpOnly, SameSite=Lax cookies (Secure on https); every form carries the session's
 * anti-forgery token. A vendor that does not reach production (an open sign-up) gets, on every production
 * page and form, the page that says why and what to ask the operator.
 * Each section registers its routes from its own file over one context (panel-routing.ts).
 */
export function registerPanel(app: HttpApp, { services }: { services: Services }) {
  registerPanelAuth(app, { services });
  registerSignOut(app, { services });

  const routing = panelRouting(app, services);
  registerOverviewPage(routing);
  registerCustomerPages(routing);
  registerPayoutPages(routing);
  registerTaxPages(routing);
  registerDeveloperPages(routing);
  registerSettingsPages(routing);
  registerLogoUpload(app, {
    services,
    sessionOf: (request) => services.panel.session(cookieOf(request, SESSION_COOKIE)),
  });
  registerProductImageUpload(app, {
    services,
    sessionOf: (request) => services.panel.session(cookieOf(request, SESSION_COOKIE)),
  });
  registerCatalogPages(routing);
  registerEmailPages(routing);
  registerTransactionPages(routing);

  app.get('/sandbox/panel', { schema: { hide: true } }, (_request, reply) => reply.redirect('/panel?env=sandbox', 302));
}
