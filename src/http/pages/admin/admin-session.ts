import type { FastifyReply } from 'fastify';
import type { Scope } from '../../../domain/model.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import { sendProblem } from '../layout.ts';

/** An open admin session: the vendor's scope, its name, and the origins that may frame its pages. */
export type AdminSession = { scope: Scope; vendorName: string; frameAncestors: string };

const framers = async ({ services }: EnvironmentContext, vendorId: string) => {
  const origins = (await services.catalog.findVendor(vendorId))?.adminFrameOrigins ?? [];
  return origins.length ? origins.join(' ') : "'none'";
};

/** `/admin/{token}`: the link, opened within its 15 minutes, becomes a session token in the path. */
export async function openAdminLink({ services, environment }: EnvironmentContext, reply: FastifyReply, token: string) {
  const opened = await services.adminSessions.openFromLink(token, environment);
  if (opened.status === 'expired')
    return sendProblem(
      reply,
      410,
      'This link has expired',
      'Admin links must be opened within 15 minutes. Ask for a new one.',
    );
  if (opened.status === 'invalid')
    return sendProblem(reply, 404, 'This link is not valid', 'Check that you copied the whole link.');
  return reply
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .redirect(`s/${opened.token}`, 303);
}

/** The session's vendor scope, or the page that says why there is none. */
export async function adminSession(context: EnvironmentContext, reply: FastifyReply, token: string) {
  const { services, environment } = context;
  const check = await services.adminSessions.check(token, environment);
  if (check.status === 'ended')
    return {
      reply: sendProblem(reply, 410, 'This session has ended', 'Open the admin tool again from your own site.'),
    };
  if (check.status === 'invalid')
    return {
      reply: sendProblem(reply, 404, 'This link is not valid', 'Open the admin tool again from your own site.'),
    };
  const scope: Scope = check.scope;
  const vendor = await services.catalog.findVendor(scope.vendorId);
  return { scope, vendorName: vendor?.name ?? '', frameAncestors: await framers(context, scope.vendorId) };
}
