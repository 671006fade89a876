import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { html, sendPage } from '../layout.ts';
import { customerDetail, customersContent } from './customers.ts';
import { developersContent } from './developers.ts';
import { registerCatalogPages } from './catalog-routes.ts';
import { registerEmailPages } from './email-routes.ts';
import { overviewContent } from './overview.ts';
import { registerPanelAuth } from './panel-auth-routes.ts';
import { cookieOf, cookieSetter, same, SESSION_COOKIE } from './panel-cookies.ts';
import { NOTICES, PANEL_SCRIPT, PANEL_STYLE, panelHref, panelPage, sectionOf, type Section } from './panel-layout.ts';
import { authPage, productionClosedContent } from './panel-views.ts';
import { registerLogoUpload } from './logo-upload.ts';
import { LOGO_SCRIPT, settingsContent } from './settings.ts';
import { PAGE_SIZE } from './transactions.ts';
import { registerTransactionPages } from './transaction-routes.ts';
import { scopeOf, vendorLocale, type PanelRouting } from './panel-routing.ts';

/**
 * The vendor panel at {panel_url} = {base_url}/panel ({sandbox_panel_url} opens it on the sandbox):
 * sign-up and sign-in, then one page per environment with the API credentials, the products and
 * their snippets, the transactions (the admin tool), the customer e-mails and the settings.
 * Sessions are HttpOnly, SameSite=Lax cookies (Secure on https); every form carries the session's
 * anti-forgery token. A vendor that does not reach production (an open sign-up) gets, on every production
 * page and form, the page that says why and what to ask the operator.
 */
export function registerPanel(app: HttpApp, { services }: { services: Services }) {
  const setCookie = cookieSetter(services.config.baseUrl);
  const environmentOf = (request: FastifyRequest): Environment =>
    (request.query as { env?: string }).env === 'production' ? 'production' : 'sandbox';

  /** Sends one panel page: the frame (navigation, environment switch, notices) around its content. */
  const page: PanelRouting['page'] = async (reply, session, environment, section, title, content, options = {}) => {
    const vendor = await services.catalog.requireVendor(session.user.vendorId);
    return sendPage(reply, {
      status: options.status ?? 200,
      title: `${title} · ${environment === 'sandbox' ? 'Sandbox' : 'Production'}`,
      script: section === 'settings' ? `${PANEL_SCRIPT};\n${LOGO_SCRIPT}` : PANEL_SCRIPT,
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
        },
        section,
        title,
        content,
        options.switchPath,
      ),
    });
  };

  const developersPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; notice?: string | undefined; error?: string; issued?: string | undefined } = {},
  ) => {
    const credentials = (await services.credentials.list(session.user.vendorId)).filter(
      (c) => c.environment === environment,
    );
    const content = developersContent({
      environment,
      csrf: session.csrfToken,
      apiBase: services.urls.base(environment),
      vendorId: session.user.vendorId,
      credentials,
      issued: extra.issued,
    });
    return page(reply, session, environment, 'developers', 'Developers', content, extra);
  };

  const settingsPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; notice?: string | undefined; error?: string; form?: FormBody } = {},
  ) => {
    const vendor = await services.catalog.requireVendor(session.user.vendorId);
    return page(
      reply,
      session,
      environment,
      'settings',
      'Settings',
      settingsContent({ environment, csrf: session.csrfToken, vendor, form: extra.form }),
      extra,
    );
  };

  /** The signed-in session, after checking the form's anti-forgery token on a POST. */
  const signedIn = async (request: FastifyRequest, reply: FastifyReply): Promise<PanelSession | undefined> => {
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
  };

  /**
   * True when the page or form is production's and the vendor does not reach production: it has been
   * answered with the page that says why (403), and nothing is done. (A boolean: a reply is thenable.)
   */
  const productionClosed = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    path: string,
  ): Promise<boolean> => {
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
  };

  registerPanelAuth(app, { services });

  app.post('/panel/signout', { schema: { hide: true } }, async (request, reply) => {
    if (!(await signedIn(request, reply))) return reply;
    await services.panel.signOut(cookieOf(request, SESSION_COOKIE));
    setCookie(reply, SESSION_COOKIE, '', 0);
    return reply.redirect('/panel/signin', 303);
  });

  const noticeOf = (request: FastifyRequest) => NOTICES[(request.query as { done?: string }).done ?? ''];

  /** A signed-in GET page. */
  const view = <P extends Record<string, string> = Record<string, never>>(
    path: string,
    run: (
      session: PanelSession,
      environment: Environment,
      request: FastifyRequest<{ Params: P }>,
      reply: FastifyReply,
    ) => Promise<unknown>,
  ) =>
    app.get<{ Params: P }>(path, { schema: { hide: true } }, async (request, reply) => {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      const environment = environmentOf(request);
      if (await productionClosed(reply, session, environment, path)) return reply;
      return run(session, environment, request, reply);
    });

  view('/panel', async (session, environment, request, reply) => {
    const unit = (request.query as { by?: string }).by === 'month' ? 'month' : 'day';
    const overview = await services.dashboard.overview(scopeOf(session, environment), unit);
    return page(
      reply,
      session,
      environment,
      'overview',
      'Overview',
      overviewContent(overview, environment, vendorLocale(request)),
      {
        notice: noticeOf(request),
      },
    );
  });

  const notFound = (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    section: Section,
    what: string,
  ) =>
    page(reply, session, environment, section, 'Not found', html`<p>There is no ${what} here in ${environment}.</p>`, {
      status: 404,
    });

  view('/panel/customers', async (session, environment, request, reply) => {
    const raw = request.query as { q?: unknown; page?: unknown };
    const q = typeof raw.q === 'string' ? raw.q.slice(0, 200) : '';
    const pageNumber = Math.min(
      10_000,
      Math.max(1, Number.parseInt(typeof raw.page === 'string' ? raw.page : '1', 10) || 1),
    );
    const { customers, total } = await services.dashboard.customers(scopeOf(session, environment), q, {
      limit: PAGE_SIZE,
      offset: (pageNumber - 1) * PAGE_SIZE,
    });
    return page(
      reply,
      session,
      environment,
      'customers',
      'Customers',
      customersContent({ environment, q, customers, total, page: pageNumber, pageSize: PAGE_SIZE }),
    );
  });

  view<{ id: string }>('/panel/customers/:id', async (session, environment, request, reply) => {
    const customer = await services.dashboard.customer(scopeOf(session, environment), request.params.id);
    if (!customer) return notFound(reply, session, environment, 'customers', 'such customer');
    return page(
      reply,
      session,
      environment,
      'customers',
      customer.email,
      customerDetail({ environment, customer, locale: vendorLocale(request) }),
      {
        switchPath: '/panel/customers',
      },
    );
  });

  view('/panel/developers', async (session, environment, request, reply) =>
    developersPage(reply, session, environment, {
      notice: noticeOf(request),
      issued: await services.panelFlashes.take(cookieOf(request, SESSION_COOKIE)),
    }),
  );
  view('/panel/settings', (session, environment, request, reply) =>
    settingsPage(reply, session, environment, { notice: noticeOf(request) }),
  );

  /**
   * Every POST ends in a 303 redirect to a page (a reload repeats nothing), or shows the page of
   * its form again with the error and what was typed.
   */
  const action: PanelRouting['action'] = (path, onError, run, config = {}) =>
    app.post(path, { schema: { hide: true }, config }, async (request, reply) => {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      const environment = environmentOf(request);
      if (await productionClosed(reply, session, environment, path)) return reply;
      const form = (request.body ?? {}) as FormBody;
      try {
        return await run(session, scopeOf(session, environment), form, reply, request);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return onError(reply, session, environment, err.message, form, err, request);
      }
    });
  const to = (reply: FastifyReply, path: string, environment: Environment, done: string) =>
    reply.redirect(panelHref(path, environment, { done }), 303);

  action(
    '/panel/credentials',
    (reply, session, environment, error) => developersPage(reply, session, environment, { status: 400, error }),
    async (_session, scope, form, reply, request) => {
      if (form.action === 'create') {
        // The secret goes through a one-time flash in the store: the page after the redirect, in
        // whichever process it lands, shows it once, and a reload creates nothing.
        const { authorization } = await services.credentials.issue(scope);
        await services.panelFlashes.put(cookieOf(request, SESSION_COOKIE)!, authorization);
        return to(reply, '/panel/developers', scope.environment, 'credential');
      }
      if (!(await services.credentials.revoke(scope, form.id ?? '')))
        throw new AppError('NOT_FOUND', 'There is no such credential.');
      return to(reply, '/panel/developers', scope.environment, 'revoked');
    },
  );

  registerLogoUpload(app, {
    services,
    sessionOf: (request) => services.panel.session(cookieOf(request, SESSION_COOKIE)),
  });

  action(
    '/panel/settings',
    (reply, session, environment, error, form) =>
      settingsPage(reply, session, environment, { status: 400, error, form }),
    async (session, scope, form, reply) => {
      await services.catalog.updateVendorSettings(session.user.vendorId, {
        allowConversion: form.allowConversion === 'yes',
        adminFrameOrigins: (form.adminFrameOrigins ?? '').split(/[\s,]+/).filter(Boolean),
        sellerName: form.sellerName ?? '',
        address: form.address ?? '',
        country: form.country ?? '',
        taxId: form.taxId ?? '',
        supportEmail: form.supportEmail ?? '',
        ...(form.removeLogo === 'yes' ? { logo: null } : {}),
      });
      return to(reply, '/panel/settings', scope.environment, 'settings');
    },
  );

  registerCatalogPages({ services, view, action, page, notFound, to, noticeOf });
  registerEmailPages({ services, view, action, page, notFound, to, noticeOf });
  registerTransactionPages({ services, view, action, page, notFound, to, noticeOf });

  // The admin tool (section 18), opened with a fresh session for this vendor that ends when this
  // panel session does (sign-out or expiry).
  action(
    '/panel/transactions',
    (reply, session, environment, error) => developersPage(reply, session, environment, { status: 400, error }),
    async (session, scope, _form, reply) => {
      const token = await services.adminSessions.openFromPanel(scope, session);
      const prefix = scope.environment === 'sandbox' ? '/sandbox' : '';
      return reply.redirect(`${prefix}/admin/s/${token}`, 303);
    },
  );

  action(
    '/panel/admin-sessions',
    (reply, session, environment, error) => settingsPage(reply, session, environment, { status: 400, error }),
    async (_session, scope, _form, reply) => {
      await services.adminSessions.revokeAll(scope);
      return to(reply, '/panel/settings', scope.environment, 'admin-sessions');
    },
  );

  app.get('/sandbox/panel', { schema: { hide: true } }, (_request, reply) => reply.redirect('/panel?env=sandbox', 302));
}
