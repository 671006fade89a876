import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { html, sendPage, type Html } from '../layout.ts';
import { pageScript } from '../page-scripts.ts';
import { cookieOf, same, SESSION_COOKIE } from './panel-cookies.ts';
import { NOTICES, PANEL_STYLE, panelHref, panelPage, sectionOf, type Section } from './panel-layout.ts';
import {
  scopeOf,
  type ActionConfig,
  type ActionError,
  type ActionRun,
  type PageOptions,
  type PanelRouting,
  type ViewRun,
} from './panel-routing.ts';
import { checkoutWarnings } from './panel-notices.ts';
import { authPage, productionClosedContent } from './panel-views.ts';

/** What the guards of a signed-in route need: the services, and the frame to answer in. */
type Framing = Pick<PanelRouting, 'services' | 'page'>;

/** The context the panel's sections register their routes over, on this app. */
export function panelRouting(app: HttpApp, services: Services): PanelRouting {
  const page: PanelRouting['page'] = (...args) => sendPanelPage(services, ...args);
  const framing: Framing = { services, page };
  return {
    services,
    page,
    view: <P extends Record<string, string>>(path: string, run: ViewRun<P>) => signedInView(app, framing, path, run),
    action: (path, onError, run, config) => signedInAction(app, framing, path, onError, run, config),
    notFound: (reply, session, environment, section, what) =>
      page(
        reply,
        session,
        environment,
        section,
        'Not found',
        html`<p>There is no ${what} here in ${environment}.</p>`,
        {
          status: 404,
        },
      ),
    to: (reply, path, environment, done) => reply.redirect(panelHref(path, environment, { done }), 303),
    noticeOf: (request) => NOTICES[(request.query as { done?: string }).done ?? ''],
  };
}

const environmentOf = (request: FastifyRequest): Environment =>
  (request.query as { env?: string }).env === 'production' ? 'production' : 'sandbox';

/** Sends one panel page: the frame (navigation, environment switch, notices) around its content. */
async function sendPanelPage(
  services: Services,
  reply: FastifyReply,
  session: PanelSession,
  environment: Environment,
  section: Section,
  title: string,
  content: Html,
  options: PageOptions = {},
) {
  const vendor = await services.catalog.requireVendor(session.user.vendorId);
  return sendPage(reply, {
    status: options.status ?? 200,
    title: `${title} · ${environment === 'sandbox' ? 'Sandbox' : 'Production'}`,
    // The panel's script (src/http/pages/browser/panel.ts), on Settings the logo upload's, on Products the image upload's.
    script:
      pageScript('panel') +
      (section === 'settings' ? pageScript('logo-upload') : '') +
      (section === 'products' ? pageScript('product-image-upload') : ''),
    style: PANEL_STYLE,
    styleAttributes: options.styleAttributes,
    body: panelPage(
      {
        vendor,
        email: session.user.email,
        environment,
        csrf: session.csrfToken,
        notice: options.notice,
        error: options.error,
        warnings: checkoutWarnings(services.catalog.vendorStatus(vendor), environment, services),
      },
      section,
      title,
      content,
      options.switchPath,
    ),
  });
}

/** The signed-in session, after checking the form's anti-forgery token on a POST. */
export async function signedIn(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<PanelSession | undefined> {
  const session = await services.panel.session(cookieOf(request, SESSION_COOKIE));
  if (!session) {
    await reply.redirect('/panel/signin', 303);
    return undefined;
  }
  if (request.method === 'POST' && !same(((request.body ?? {}) as FormBody).csrf ?? '', session.csrfToken)) {
    await sendPage(reply, {
      status: 403,
      title: 'Refused',
      body: authPage({
        mode: 'signin',
        csrf: '',
        signUpMode: services.panel.signUpMode,
        error: 'This form has expired. Reload the page and try again.',
      }),
    });
    return undefined;
  }
  return session;
}

/**
 * True when the page or form is production's and the vendor does not reach production: it has been
 * answered with the page that says why (403), and nothing is done. (A boolean: a reply is thenable.)
 */
async function productionClosed(
  { services, page }: Framing,
  reply: FastifyReply,
  session: PanelSession,
  environment: Environment,
  path: string,
): Promise<boolean> {
  if (environment === 'sandbox') return false;
  try {
    await services.catalog.requireEnvironment(scopeOf(session, environment));
    return false;
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'FORBIDDEN')) throw err;
  }
  const vendor = await services.catalog.requireVendor(session.user.vendorId);
  await page(
    reply,
    session,
    environment,
    sectionOf(path),
    'Production is not enabled',
    productionClosedContent(vendor),
    { status: 403 },
  );
  return true;
}

/** A signed-in GET page. */
function signedInView<P extends Record<string, string>>(app: HttpApp, framing: Framing, path: string, run: ViewRun<P>) {
  return app.get<{ Params: P }>(path, { schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(framing.services, request, reply);
    if (!session) return reply;
    const environment = environmentOf(request);
    if (await productionClosed(framing, reply, session, environment, path)) return reply;
    return run(session, environment, request, reply);
  });
}

/**
 * Every POST ends in a 303 redirect to a page (a reload repeats nothing), or shows the page of
 * its form again with the error and what was typed.
 */
function signedInAction(
  app: HttpApp,
  framing: Framing,
  path: string,
  onError: ActionError,
  run: ActionRun,
  config: ActionConfig = {},
) {
  return app.post(path, { schema: { hide: true }, config }, async (request, reply) => {
    const session = await signedIn(framing.services, request, reply);
    if (!session) return reply;
    const environment = environmentOf(request);
    if (await productionClosed(framing, reply, session, environment, path)) return reply;
    const form = (request.body ?? {}) as FormBody;
    try {
      return await run(session, scopeOf(session, environment), form, reply, request);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return onError(reply, session, environment, err.message, form, err, request);
    }
  });
}
