import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { developersContent } from './developers.ts';
import { cookieOf, SESSION_COOKIE } from './panel-cookies.ts';
import type { PanelRouting } from './panel-routing.ts';

/**
 * The panel's Developers section: the API base URL and the environment's credentials (issued, shown
 * once, revoked), and the button that opens the admin tool.
 */
export function registerDeveloperPages({ services, view, action, page, to, noticeOf }: PanelRouting) {
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
