import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { invalidInput } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { describeFailure } from '../errors-plugin.ts';
import type { WireErrorCode } from '../error-status.ts';
import { ENVIRONMENT_PREFIXES, type EnvironmentContext, type HttpApp } from '../http-app.ts';
import { registerInvoiceRoutes } from '../invoice-routes.ts';
import { registerAdminTool } from './admin/admin-routes.ts';
import { registerCheckout } from './checkout/checkout-routes.ts';
import { FORM_BODY_LIMIT, FORM_CONTENT_TYPE, registerFormBody } from './form-body.ts';
import { sendProblem } from './layout.ts';
import { registerManagePage } from './manage/manage-routes.ts';
import { registerOperatorConsole } from './operator/operator-routes.ts';
import { loadPageScripts } from './page-scripts.ts';
import { registerPanelInvite } from './panel/panel-invite-routes.ts';
import { registerPanel } from './panel/panel-routes.ts';

/**
 * Every server-rendered page, in one scope with one form-body parser: the vendor panel, and per
 * environment (production at /, the sandbox at /sandbox) the checkout, the customer's management
 * page, the admin tool and the invoice documents. A page answers a page, failures included: what
 * the API would say as `{error, message}`, a page says on the one problem page. (A request that
 * reaches no route, such as an unknown path or a malformed URL, gets the API's JSON answer.)
 */
export async function pagesPlugin(app: HttpApp, { services }: { services: Services }) {
  // The pages' browser scripts, read from the build or bundled from src/http/pages/browser, before any page is served.
  await loadPageScripts();
  registerFormBody(app);
  app.addHook('preValidation', checkPageInput);
  app.setErrorHandler(sendPageError);
  registerPanel(app, { services });
  registerPanelInvite(app, { services });
  registerOperatorConsole(app, { services });
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

/**
 * What every page reads from a request is text: the query, like the form, is field name → string
 * (a repeated name keeps its last value), and no path parameter, query or form field may hold U+0000,
 * which no store can keep (the API refuses it the same way).
 */
async function checkPageInput(request: FastifyRequest) {
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const last = Array.isArray(value) ? value.at(-1) : value;
    if (typeof last === 'string') query[name] = last;
  }
  request.query = query;
  for (const [part, fields] of [
    ['path', request.params],
    ['query', query],
    ['form', request.body],
  ] as const) {
    for (const [name, value] of Object.entries((fields ?? {}) as Record<string, unknown>)) {
      if (name.includes('\u0000') || (typeof value === 'string' && value.includes('\u0000'))) {
        throw invalidInput(`The ${part} contains the NUL character (U+0000), which no field may hold.`);
      }
    }
  }
}

/** Where a page's own words say it better than the API's message. */
const PAGE_WORDING: Partial<Record<WireErrorCode, [title: string, text: string]>> = {
  UNSUPPORTED_MEDIA_TYPE: [
    'Not a form',
    `This page takes forms only: send the fields as ${FORM_CONTENT_TYPE}, as a browser does.`,
  ],
  BODY_TOO_LARGE: ['The form is too large', `A form may have ${FORM_BODY_LIMIT / 1024} KB at most.`],
  INTERNAL_ERROR: ['Something went wrong', 'Something went wrong on our side; nothing was changed. Try again later.'],
};

const TITLES: Record<number, string> = {
  400: 'This request cannot be used',
  401: 'Not signed in',
  402: 'Payment declined',
  403: 'Not available',
  404: 'Not found',
  409: 'Already in progress',
  410: 'This link has expired',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/** Anything a page route throws ends on the problem page, with the status the API would give it. */
function sendPageError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const described = describeFailure(request, err);
  if (described.retryAfterSeconds !== undefined) reply.header('retry-after', String(described.retryAfterSeconds));
  const whileUnavailable = request.routeOptions.config.whileUnavailable;
  if (described.error === 'SERVICE_UNAVAILABLE' && whileUnavailable) return whileUnavailable(request, reply.code(503));
  const [title, text] = PAGE_WORDING[described.error] ?? [
    TITLES[described.status] ?? 'This request cannot be used',
    described.message,
  ];
  return sendProblem(reply, described.status, title, text);
}
