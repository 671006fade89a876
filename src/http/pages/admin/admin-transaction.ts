import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import { typedAmount, type FormBody } from '../form-body.ts';
import { sendPage, sendProblem } from '../layout.ts';
import { vendorLocale } from '../panel/panel-routing.ts';
import { refundedNotice } from '../panel/words.ts';
import { adminSession, type AdminSession } from './admin-session.ts';
import { adminDetail } from './admin-views.ts';

const NOTICES: Record<string, string> = {
  refunded: 'Refunded.',
  'refund-pending': 'The refund is being confirmed by the payment provider; it appears here once confirmed.',
  cancelled: 'Cancelled.',
  assigned: 'The e-mail is assigned.',
  payload: 'The payload is saved.',
};

/** One transaction of the session's vendor, with its ledger and its forms, or the page that says there is none. */
async function detail(
  { services, environment }: EnvironmentContext,
  reply: FastifyReply,
  token: string,
  s: AdminSession,
  id: string,
  status: number,
  message: { notice?: string | undefined; error?: string | undefined; form?: FormBody },
) {
  const found = await services.transactions.get(s.scope, id).catch((err) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  });
  if (!found) return sendProblem(reply, 404, 'Not found', `There is no transaction ${id} here.`, s.frameAncestors);
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
}

/** `/admin/s/{session}/tx/{id}`: the transaction, with what the last form did. */
export async function showTransaction(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
  id: string,
  done: string | undefined,
) {
  const s = await adminSession(context, reply, token);
  if (s.reply) return s.reply;
  return detail(context, reply, token, s, id, 200, { notice: NOTICES[done ?? ''] });
}

/** A form of the transaction's page: refund, cancel, assign an e-mail, or change the payload. */
export async function actOnTransaction(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
  id: string,
  body: FormBody | undefined,
) {
  const { services } = context;
  const s = await adminSession(context, reply, token);
  if (s.reply) return s.reply;
  const form = (body ?? {}) as FormBody;
  if (!services.links.formTokenMatches(token, form.formToken ?? ''))
    return sendProblem(reply, 403, 'This form has expired', 'Reload the page and try again.', s.frameAncestors);
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
      return sendProblem(reply, 404, 'Not found', `There is no transaction ${id} here.`, s.frameAncestors);
    return detail(context, reply, token, s, id, 400, { error: err.message, form });
  }
}
