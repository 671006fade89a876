import type { Scope } from '../../../domain/model.ts';
import { AppError } from '../../../domain/errors.ts';
import type { WireErrorCode } from '../../error-status.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { jsonErrorHandler } from '../json-errors.ts';
import { checkLink } from './manage-link.ts';

type Answer = { status: number; body: Record<string, unknown> };

/**
 * The JSON endpoints of the processor's script: same link, same form token, same "not yours is not
 * found"; every failure, a body the page parser refused included, is `{error, message}`.
 */
function registerJson(
  app: HttpApp,
  context: EnvironmentContext,
  path: string,
  handle: (scope: Scope, email: string, id: string) => Promise<Answer>,
) {
  const { services, environment } = context;
  return app.post<{ Params: { token: string }; Body: FormBody }>(
    `/manage/:token/${path}`,
    {
      schema: { hide: true },
      errorHandler: jsonErrorHandler,
    },
    async (request, reply) => {
      const send = (status: number, error: WireErrorCode, message: string) =>
        reply.code(status).header('cache-control', 'no-store').send({ error, message });
      const token = request.params.token;
      const opened = checkLink(context, token);
      if (opened.status === 'expired')
        return send(410, 'LINK_EXPIRED', 'This link has expired; ask the seller for a new one.');
      if (opened.status !== 'open') return send(404, 'NOT_FOUND', 'This link is not valid.');
      const form = (request.body ?? {}) as FormBody;
      // The form token is the page's proof that the request comes from it: without it, 403 as for the page's forms.
      if (!services.links.formTokenMatches(token, form.formToken ?? ''))
        return send(403, 'UNAUTHORIZED', 'This page has expired; reload it and try again.');
      if (services.payments.cardEntry(environment).kind !== 'browser')
        return send(404, 'NOT_FOUND', 'This page takes the card in its own form.');
      try {
        const answer = await handle(opened.scope, opened.email, form.transactionId ?? '');
        return reply.code(answer.status).header('cache-control', 'no-store').send(answer.body);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'NOT_FOUND') return send(404, 'NOT_FOUND', 'That purchase is not one of yours.');
        // Nothing to confirm, or a card that cannot be changed: the purchase is not in a state for it.
        return send(409, err.code, err.message);
      }
    },
  );
}

/**
 * Under the page, for a processor that takes cards in the browser: `authentication/session` (the
 * client secret of a renewal the bank holds for 3-D Secure) and `card/session` (a card setup session
 * for a new card).
 */
export function registerProcessorEndpoints(app: HttpApp, context: EnvironmentContext) {
  const { services } = context;
  registerJson(app, context, 'authentication/session', async (scope, email, id) => ({
    status: 200,
    body: await services.portal.authenticationSession(scope, email, id),
  }));

  registerJson(app, context, 'card/session', async (scope, email, id) => {
    const started = await services.portal.startCardSession(scope, email, id);
    if ('status' in started)
      return { status: 402, body: { error: 'PAYMENT_DECLINED' satisfies WireErrorCode, message: started.message } };
    return { status: 200, body: { clientSecret: started.clientSecret, cardSession: started.cardSession } };
  });
}
