import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Scope } from '../../../domain/model.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { sendPage, sendProblem } from '../layout.ts';
import { managePage } from './manage-views.ts';

const NOTICES: Record<string, string> = {
  cancelled: 'Cancelled. Nothing more will be charged.',
  card: 'The new card is saved.',
};

/**
 * The customer's management page behind the URL of generate-url-to-manage-transactions. The signed
 * link is the customer's credential (one hour); its forms carry a token derived from it, so another
 * site cannot submit them.
 */
export function registerManagePage(app: HttpApp, { services, environment }: EnvironmentContext) {
  const problem = (reply: FastifyReply, status: number, title: string, text: string) => sendProblem(reply, status, title, text);

  const open = (reply: FastifyReply, token: string) => {
    const check = services.links.check(token, 'manage', services.clock.real());
    if (check.status === 'expired')
      return { reply: problem(reply, 410, 'This link has expired', 'Ask the seller for a new link: these links work for one hour.') };
    if (check.status === 'invalid' || check.claims.environment !== environment) {
      return { reply: problem(reply, 404, 'This link is not valid', 'Check that you copied the whole link, or ask the seller for a new one.') };
    }
    return { scope: { vendorId: check.claims.vendorId, environment } as Scope, email: check.claims.subject };
  };

  const render = async (
    reply: FastifyReply,
    token: string,
    scope: Scope,
    email: string,
    status: number,
    message: { notice?: string | undefined; error?: string | undefined } = {},
  ) => {
    const vendor = await services.catalog.findVendor(scope.vendorId);
    const items = await services.portal.overview(scope, email);
    return sendPage(reply, {
      status,
      title: 'Your purchases',
      body: managePage({ vendorName: vendor?.name ?? '', email, environment, items, formToken: services.links.formToken(token), ...message }),
    });
  };

  app.get<{ Params: { token: string }; Querystring: { done?: string } }>('/manage/:token', { schema: { hide: true } }, async (request, reply) => {
    const opened = open(reply, request.params.token);
    if (opened.reply) return opened.reply;
    return render(reply, request.params.token, opened.scope, opened.email, 200, { notice: NOTICES[request.query.done ?? ''] });
  });

  app.post<{ Params: { token: string }; Body: FormBody }>('/manage/:token', { schema: { hide: true } }, async (request, reply) => {
    const token = request.params.token;
    const opened = open(reply, token);
    if (opened.reply) return opened.reply;
    const { scope, email } = opened;
    const form = (request.body ?? {}) as FormBody;
    if (!services.links.formTokenMatches(token, form.formToken ?? '')) {
      return problem(reply, 403, 'This form has expired', 'Reload the page and try again.');
    }
    const id = form.transactionId ?? '';
    try {
      if (form.action === 'cancel') {
        await services.portal.cancel(scope, email, id);
        return reply.redirect('?done=cancelled', 303);
      }
      if (form.action === 'card') {
        const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.cardExpiry ?? '');
        if (!expiry) throw new AppError('INVALID_INPUT', 'Enter the card expiry as MM/YY.');
        if (!/^\d{3,4}$/.test((form.cardCvc ?? '').trim())) throw new AppError('INVALID_INPUT', 'Enter the 3 or 4 digit security code (CVC) of the card.');
        const result = await services.portal.updateCard(scope, email, id, {
          number: (form.cardNumber ?? '').replace(/[\s-]/g, ''),
          expMonth: Number(expiry[1]),
          expYear: Number(expiry[2]),
          cvc: form.cardCvc,
        });
        if (result.status === 'DECLINED') return render(reply, token, scope, email, 402, { error: `The card was not accepted: ${result.message}` });
        return reply.redirect('?done=card', 303);
      }
      return render(reply, token, scope, email, 400, { error: 'Unknown action; reload the page and try again.' });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'NOT_FOUND') return problem(reply, 404, 'Not found', 'That purchase is not one of yours.');
      return render(reply, token, scope, email, 400, { error: err.message });
    }
  });
}
