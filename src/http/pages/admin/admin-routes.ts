import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { showTransactions } from './admin-search.ts';
import { openAdminLink } from './admin-session.ts';
import { actOnTransaction, showTransaction } from './admin-transaction.ts';

const HIDDEN = { schema: { hide: true } };

/**
 * The admin tool behind the URL of generate-url-to-admin, made to live in an iframe of the vendor's
 * own site: only the origins of the vendor's admin_frame_origins setting may frame it. The link
 * (15 minutes to open) becomes a session token in the path, valid 8 hours unless it ends sooner (a
 * panel sign-out, a revocation: checked on every request); cookies would not reach a cross-site
 * iframe. Forms carry an HMAC of the session, so no other site can submit them.
 */
export function registerAdminTool(app: HttpApp, context: EnvironmentContext) {
  app.get<{ Params: { token: string } }>('/admin/:token', HIDDEN, (request, reply) =>
    openAdminLink(context, reply, request.params.token),
  );
  app.get<{ Params: { session: string }; Querystring: { q?: string } }>('/admin/s/:session', HIDDEN, (request, reply) =>
    showTransactions(context, reply, request.params.session, request.query.q),
  );
  app.get<{ Params: { session: string; id: string }; Querystring: { done?: string } }>(
    '/admin/s/:session/tx/:id',
    HIDDEN,
    (request, reply) => showTransaction(context, reply, request.params.session, request.params.id, request.query.done),
  );
  app.post<{ Params: { session: string; id: string }; Body: FormBody }>(
    '/admin/s/:session/tx/:id',
    HIDDEN,
    (request, reply) => actOnTransaction(context, reply, request.params.session, request.params.id, request.body),
  );
}
