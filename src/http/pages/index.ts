import type { Services } from '../../services.ts';
import { ENVIRONMENT_PREFIXES, type EnvironmentContext, type HttpApp } from '../http-app.ts';
import { registerInvoiceRoutes } from '../invoice-routes.ts';
import { registerAdminTool } from './admin/admin-routes.ts';
import { registerCheckout } from './checkout/checkout-routes.ts';
import { registerFormBody } from './form-body.ts';
import { registerManagePage } from './manage/manage-routes.ts';
import { registerPanel } from './panel/panel-routes.ts';

/**
 * Every server-rendered page, in one scope with one form-body parser: the vendor panel, and per
 * environment (production at /, the sandbox at /sandbox) the checkout, the customer's management
 * page, the admin tool and the invoice documents.
 */
export async function pagesPlugin(app: HttpApp, { services }: { services: Services }) {
  registerFormBody(app);
  registerPanel(app, { services });
  for (const [environment, prefix] of ENVIRONMENT_PREFIXES) {
    await app.register(hostedPages, { prefix, services, environment });
  }
}

async function hostedPages(app: HttpApp, context: EnvironmentContext) {
  registerCheckout(app, context);
  registerManagePage(app, context);
  registerAdminTool(app, context);
  registerInvoiceRoutes(app, context);
}
