import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { developersContent } from './developers.ts';
import { cookieOf, SESSION_COOKIE } from './panel-cookies.ts';
import type { PanelRouting } from './panel-routing.ts';
import { scopeOf } from './panel-routing.ts';
import { registerWebhookPages } from './webhook-routes.ts';

/**
 * The panel's Developers section: the API base URL and the environment's credentials (issued, shown
 * once, revoked), and the button that opens the admin tool.
 */
export function registerDeveloperPages(routing: PanelRouting) {
  const { services, view, action, page, to, noticeOf } = routing;
  const developersPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; notice?: string | undefined; error?: string; issued?: string | undefined } = {},
  ) => {
    const [all, endpoints] = await Promise.all([
      services.credentials.list(session.user.vendorId),
      services.webhooks.list(scopeOf(session, environment)),
    ]);
    const credentials = all.filter((c) => c.environment === environment);
    // The one-time flash holds a new credential, or a new webhook endpoint's secret.
    const secret = extra.issued?.startsWith('whsec_') ? extra.issued : undefined;
    const content = developersContent({
      environment,
      csrf: session.csrfToken,
      apiBase: services.urls.base(environment),
      vendorId: session.user.vendorId,
      credentials,
      issued: secret ? undefined : extra.issued,
      webhooks: { endpoints, secret },
    });
    return page(reply, session, environment, 'developers', 'Developers', content, extra);
  };

  view('/panel/developers', async (session, environment, request, reply) =>
    developersPage(reply, session, environment, {
      notice: noticeOf(request),
      issued: await services.panelFlashes.take(cookieOf(request, SESSION_COOKIE)),
    }),
  );

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

  registerWebhookPages(routing, developersPage);

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
}
