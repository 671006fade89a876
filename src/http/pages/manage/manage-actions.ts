import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { sendProblem } from '../layout.ts';
import { openLink, type Visit } from './manage-link.ts';
import { afterAuthentication, afterCardSession, refused, render } from './manage-render.ts';

/**
 * `POST /manage/{token}`: a form of the page, with the page's form token. Cancel, a new card typed
 * in the page's own form, or what came of the processor's element: a card session to finish, a
 * renewal the customer confirmed with the bank.
 */
export async function actOnPurchase(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
  body: FormBody | undefined,
) {
  const { services } = context;
  const opened = openLink(context, reply, token);
  if ('reply' in opened) return opened.reply;
  const { scope, email } = opened;
  const visit = { token, scope, email };
  const form = (body ?? {}) as FormBody;
  if (!services.links.formTokenMatches(token, form.formToken ?? '')) {
    return sendProblem(reply, 403, 'This form has expired', 'Reload the page and try again.');
  }
  const id = form.transactionId ?? '';
  try {
    if (form.action === 'cancel') {
      await services.portal.cancel(scope, email, id);
      return reply.redirect('?done=cancelled', 303);
    }
    if (form.action === 'card') return await changeCard(context, reply, visit, id, form);
    if (form.action === 'card-complete') {
      const cardSession = form.cardSession ?? '';
      // Without JavaScript the processor's card field never appeared, so there is no session to finish.
      if (!cardSession)
        throw new AppError(
          'INVALID_INPUT',
          'The card field needs JavaScript: turn it on, reload the page and enter the new card.',
        );
      const outcome = await services.portal.completeCardSession(scope, email, id, cardSession);
      return afterCardSession(context, reply, visit, id, cardSession, outcome);
    }
    if (form.action === 'authenticated') {
      return afterAuthentication(context, reply, visit, id, await services.portal.authenticated(scope, email, id));
    }
    return render(context, reply, visit, 400, { error: 'Unknown action; reload the page and try again.' });
  } catch (err) {
    return refused(context, reply, visit, err);
  }
}

/** A new card typed in the page's own form (a processor that takes cards on the server). */
async function changeCard(context: EnvironmentContext, reply: FastifyReply, visit: Visit, id: string, form: FormBody) {
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.cardExpiry ?? '');
  if (!expiry) throw new AppError('INVALID_INPUT', 'Enter the card expiry as MM/YY.');
  if (!/^\d{3,4}$/.test((form.cardCvc ?? '').trim()))
    throw new AppError('INVALID_INPUT', 'Enter the 3 or 4 digit security code (CVC) of the card.');
  const result = await context.services.portal.updateCard(visit.scope, visit.email, id, {
    number: (form.cardNumber ?? '').replace(/[\s-]/g, ''),
    expMonth: Number(expiry[1]),
    expYear: Number(expiry[2]),
    cvc: form.cardCvc,
  });
  if (result.status === 'DECLINED')
    return render(context, reply, visit, 402, { error: `The card was not accepted: ${result.message}` });
  return reply.redirect('?done=card', 303);
}
