import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import { registerBookPages } from './books-routes.ts';
import { operatorRouting } from './operator-routing.ts';
import { registerReconciliationPage } from './reconciliation-routes.ts';
import { registerReportPages } from './reports-routes.ts';
import { registerVendorPages } from './vendor-routes.ts';

/**
 * The operator's console at {base_url}/operator (docs/decisions.md §26): whoever runs this server signs
 * in (logins from `opentill operator create`) and sees every vendor, their balances and payout
 * statements, the tax returns, and reconciliation with Stripe. Each section registers its pages from its own file over one context.
 */
export function registerOperatorConsole(app: HttpApp, { services }: { services: Services }) {
  const routing = operatorRouting(app, services);
  registerVendorPages(routing);
  registerBookPages(routing);
  registerReportPages(routing);
  registerReconciliationPage(routing);
}
