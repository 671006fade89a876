import type { FastifyReply } from 'fastify';
import type { EnvironmentContext } from '../../http-app.ts';
import { sendPage } from '../layout.ts';
import { vendorLocale } from '../panel/panel-routing.ts';
import { adminSession } from './admin-session.ts';
import { adminList } from './admin-views.ts';

/** `/admin/s/{session}`: the vendor's transactions, searched by what was typed. */
export async function showTransactions(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
  q: string | undefined,
) {
  const { services, environment } = context;
  const s = await adminSession(context, reply, token);
  if (s.reply) return s.reply;
  const query = (q ?? '').trim().slice(0, 320);
  const { transactions, error } = await services.transactions.search(s.scope, query);
  return sendPage(reply, {
    status: 200,
    title: 'Transactions',
    frameAncestors: s.frameAncestors,
    body: adminList({
      vendorName: s.vendorName,
      environment,
      session: token,
      query,
      transactions,
      error,
      locale: vendorLocale(reply.request),
    }),
  });
}
