import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeFromAcceptLanguage } from '../../../domain/money/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Scope } from '../../../domain/model.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { typedAmount, type FormBody } from '../form-body.ts';
import { sendPage, sendProblem } from '../layout.ts';
import { refundedNotice } from '../panel/words.ts';
import { adminDetail, adminList } from './admin-views.ts';

/** Amounts in the vendor's locale, from its browser (Accept-Language), else en-US. */
const vendorLocale = (request: FastifyRequest) => localeFromAcceptLanguage(request.headers['accept-language'], 'en-US');

const NOTICES: Record<string, string> = {
  refunded: 'Refunded.',
  'refund-pending': 'The refund is being confirmed by the payment provider; it appears here once confirmed.',
  cancelled: 'Cancelled.',
  assigned: 'The e-mail is assigned.',
  payload: 'The payload is saved.',
};

/**
 * The admin tool behind the URL of generate-url-to-admin, made to live in an iframe of the vendor's
 * own site: only the origins of the vendor's admin_frame_origins setting may frame it. The link
 * (15 minutes to open) becomes a session token in the path, valid 8 hours unless it ends sooner (a
 * panel sign-out, a revocation: checked on every request); cookies would not reach a cross-site
 * iframe. Forms carry an HMAC of the session, so no other site can submit them.
 */
export function registerAdminTool(app: HttpApp, { services, environment }: EnvironmentContext) {
  const problem = sendProblem;
  const framers = async (vendorId: string) => {
    const origins = (await services.catalog.findVendor(vendorId))?.adminFrameOrigins ?? [];
    return origins.length ? origins.join(' ') : "'none'";
  };

  app.get<{ Params: { token: string } }>('/admin/:token', { schema: { hide: true } }, async (request, reply) => {
    const opened = await services.adminSessions.openFromLink(request.params.token, environment);
    if (opened.status === 'expired')
      return problem(
        reply,
        410,
        'This link has expired',
        'Admin links must be opened within 15 minutes. Ask for a new one.',
      );
    if (opened.status === 'invalid')
      return problem(reply, 404, 'This link is not valid', 'Check that you copied the whole link.');
    return reply
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .redirect(`s/${opened.token}`, 303);
  });

  /** The session's vendor scope, or the page that says why there is none. */
  const session = async (reply: FastifyReply, token: string) => {
    const check = await services.adminSessions.check(token, environment);
    if (check.status === 'ended')
      return { reply: problem(reply, 410, 'This session has ended', 'Open the admin tool again from your own site.') };
    if (check.status === 'invalid')
      return { reply: problem(reply, 404, 'This link is not valid', 'Open the admin tool again from your own site.') };
    const scope: Scope = check.scope;
    const vendor = await services.catalog.findVendor(scope.vendorId);
    return { scope, vendorName: vendor?.name ?? '', frameAncestors: await framers(scope.vendorId) };
  };

  app.get<{ Params: { session: string }; Querystring: { q?: string } }>(
    '/admin/s/:session',
    { schema: { hide: true } },
    async (request, reply) => {
      const s = await session(reply, request.params.session);
      if (s.reply) return s.reply;
      const query = (request.query.q ?? '').trim().slice(0, 320);
      const { transactions, error } = await services.transactions.search(s.scope, query);
      return sendPage(reply, {
        status: 200,
        title: 'Transactions',
        frameAncestors: s.frameAncestors,
        body: adminList({
          vendorName: s.vendorName,
          environment,
          session: request.params.session,
          query,
          transactions,
          error,
          locale: vendorLocale(request),
        }),
      });
    },
  );

  const detail = async (
    reply: FastifyReply,
    token: string,
    s: { scope: Scope; vendorName: string; frameAncestors: string },
    id: string,
    status: number,
    message: { notice?: string | undefined; error?: string | undefined; form?: FormBody },
  ) => {
    const found = await services.transactions.get(s.scope, id).catch((err) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    });
    if (!found) return problem(reply, 404, 'Not found', `There is no transaction ${id} here.`, s.frameAncestors);
    return sendPage(reply, {
      status,
      title: found.transaction.productName,
      frameAncestors: s.frameAncestors,
      body: adminDetail({
        vendorName: s.vendorName,
        environment,
        session: token,
        transaction: found.transaction,
        entries: found.entries,
        formToken: services.links.formToken(token),
        locale: vendorLocale(reply.request),
        ...message,
        // After a refund the notice says what is left, from the ledger as it is now.
        ...(message.notice === NOTICES.refunded
          ? { notice: refundedNotice(found.transaction, found.entries, vendorLocale(reply.request)) }
          : {}),
      }),
    });
  };

  app.get<{ Params: { session: string; id: string }; Querystring: { done?: string } }>(
    '/admin/s/:session/tx/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const s = await session(reply, request.params.session);
      if (s.reply) return s.reply;
      return detail(reply, request.params.session, s, request.params.id, 200, {
        notice: NOTICES[request.query.done ?? ''],
      });
    },
  );

  app.post<{ Params: { session: string; id: string }; Body: FormBody }>(
    '/admin/s/:session/tx/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const token = request.params.session;
      const s = await session(reply, token);
      if (s.reply) return s.reply;
      const form = (request.body ?? {}) as FormBody;
      if (!services.links.formTokenMatches(token, form.formToken ?? ''))
        return problem(reply, 403, 'This form has expired', 'Reload the page and try again.', s.frameAncestors);
      const id = request.params.id;
      try {
        // A form sent twice (a double click) must not refund a second payment: the domain checks the
        // ledger this page showed, under the row lock of the action itself.
        const seen = { entries: /^\d{1,6}$/.test(form.version ?? '') ? Number(form.version) : -1 };
        let pending = false;
        if (form.action === 'refund') {
          const request = { amount: typedAmount(form.amount), reason: form.reason || undefined };
          pending = (await services.refunds.refund(s.scope, id, { seen, request })).status === 'PENDING';
        } else if (form.action === 'cancel') await services.transactions.cancel(s.scope, id, 'VENDOR', seen);
        else if (form.action === 'assign')
          await services.transactions.assignEmail(s.scope, id, form.assignEmail ?? '', seen);
        else if (form.action === 'payload')
          await services.transactions.updatePayload(
            s.scope,
            id,
            form.payload ? form.payload.replace(/\r\n/g, '\n') : null,
            seen,
          );
        else throw new AppError('INVALID_INPUT', 'Unknown action; reload the page and try again.');
        const done = pending
          ? 'refund-pending'
          : { refund: 'refunded', cancel: 'cancelled', assign: 'assigned', payload: 'payload' }[form.action];
        return reply.redirect(`?done=${done}`, 303);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'NOT_FOUND')
          return problem(reply, 404, 'Not found', `There is no transaction ${id} here.`, s.frameAncestors);
        return detail(reply, token, s, id, 400, { error: err.message, form });
      }
    },
  );
}
