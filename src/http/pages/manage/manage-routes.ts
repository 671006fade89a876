import type { FastifyReply } from 'fastify';
import { localeFromAcceptLanguage } from '../../../domain/money/index.ts';
import { canUpdateCard, type Authentication, type CardCompletion } from '../../../domain/portal/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { WireErrorCode } from '../../error-status.ts';
import type { Scope } from '../../../domain/model.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { jsonErrorHandler } from '../json-errors.ts';
import { sendPage, sendProblem } from '../layout.ts';
import { managePage } from './manage-views.ts';
import { MANAGE_PROCESSOR_SCRIPT } from './manage-script.ts';

const NOTICES: Record<string, string> = {
  cancelled: 'Cancelled. Nothing more will be charged.',
  card: 'The new card is saved.',
  authenticated: 'Thank you: the payment is confirmed.',
};

const STILL_CONFIRMING =
  'Thank you: your bank is still confirming the payment. Reload this page in a moment to see it paid; you do not need to confirm it again.';
const CARD_PENDING = 'Your bank is still checking the new card. Reload this page in a moment to see it saved.';
const NOT_CONFIRMED =
  'The payment is not confirmed yet: press "Confirm the payment" and complete the check your bank shows.';

type Message = { notice?: string | undefined; error?: string | undefined };

/**
 * The customer's management page behind the URL of generate-url-to-manage-transactions. The signed
 * link is the customer's credential (one hour); its forms carry a token derived from it, so another
 * site cannot submit them.
 *
 * With a processor that takes cards in the browser (its script and element), two JSON endpoints
 * under the page serve its script, with the page's form token: `authentication/session` (the client secret
 * of a renewal the bank holds for 3-D Secure, which the customer confirms in the processor's frame)
 * and `card/session` (a card setup session for a new card). The page's form then posts what came of
 * it (`authenticated`, `card-complete`), and the processor is asked, never the browser believed.
 * When the processor sends the customer away and back (a redirect method), the same outcomes come
 * back as the query of the page (`confirmed`, `cardSession`).
 */
export function registerManagePage(app: HttpApp, { services, environment }: EnvironmentContext) {
  const problem = (reply: FastifyReply, status: number, title: string, text: string) =>
    sendProblem(reply, status, title, text);
  const cardEntry = () => services.payments.cardEntry(environment);

  type Open = { status: 'open'; scope: Scope; email: string };
  type Opened = Open | { status: 'expired' } | { status: 'invalid' };
  const check = (token: string): Opened => {
    const checked = services.links.check(token, 'manage', services.clock.real());
    if (checked.status === 'expired') return { status: 'expired' };
    if (checked.status === 'invalid' || checked.claims.environment !== environment) return { status: 'invalid' };
    return { status: 'open', scope: { vendorId: checked.claims.vendorId, environment }, email: checked.claims.subject };
  };

  const open = (reply: FastifyReply, token: string): Open | { reply: FastifyReply } => {
    const opened = check(token);
    if (opened.status === 'expired')
      return {
        reply: problem(
          reply,
          410,
          'This link has expired',
          "Ask the seller for a new link: a link from the seller's site works for an hour, one in an e-mail for a week.",
        ),
      };
    if (opened.status === 'invalid') {
      return {
        reply: problem(
          reply,
          404,
          'This link is not valid',
          'Check that you copied the whole link, or ask the seller for a new one.',
        ),
      };
    }
    return opened;
  };

  const render = async (
    reply: FastifyReply,
    token: string,
    scope: Scope,
    email: string,
    status: number,
    message: Message = {},
  ) => {
    const vendor = await services.catalog.findVendor(scope.vendorId);
    const items = await services.portal.overview(scope, email);
    const entry = cardEntry();
    // The processor's script is loaded only where it has something to do: a card to change or a payment to confirm.
    const needsProcessor =
      entry.kind === 'browser' && items.some((i) => i.awaitingAuthentication !== null || canUpdateCard(i.transaction));
    return sendPage(reply, {
      status,
      title: 'Your purchases',
      body: managePage({
        vendorName: vendor?.name ?? '',
        email,
        environment,
        items,
        formToken: services.links.formToken(token),
        cardEntry: entry.kind,
        locale: localeFromAcceptLanguage(reply.request.headers['accept-language']),
        ...message,
      }),
      script:
        entry.kind === 'browser' && needsProcessor
          ? MANAGE_PROCESSOR_SCRIPT({
              publicKey: entry.publicKey,
              authenticationUrl: `${encodeURIComponent(token)}/authentication/session`,
              cardSessionUrl: `${encodeURIComponent(token)}/card/session`,
            })
          : undefined,
      processorScript:
        entry.kind === 'browser' && needsProcessor ? { url: entry.scriptUrl, origins: entry.origins } : undefined,
    });
  };

  /** Where confirming a held renewal leaves the customer: a notice, a page that checks again, or what is missing. */
  const afterAuthentication = (
    reply: FastifyReply,
    token: string,
    scope: Scope,
    email: string,
    id: string,
    outcome: Authentication,
  ) => {
    if (outcome === 'BOOKED' || outcome === 'ALREADY_BOOKED') return reply.redirect('?done=authenticated', 303);
    if (outcome === 'PENDING') return reply.redirect(`?${new URLSearchParams({ confirmed: id }).toString()}`, 303);
    return render(reply, token, scope, email, 409, { error: NOT_CONFIRMED });
  };

  /** Where a card change in the processor's element leaves the customer. */
  const afterCardSession = (
    reply: FastifyReply,
    token: string,
    scope: Scope,
    email: string,
    id: string,
    cardSession: string,
    outcome: CardCompletion,
  ) => {
    if (outcome.status === 'UPDATED') return reply.redirect('?done=card', 303);
    if (outcome.status === 'PENDING')
      return reply.redirect(`?${new URLSearchParams({ transactionId: id, cardSession }).toString()}`, 303);
    return render(reply, token, scope, email, 402, { error: `The card was not accepted: ${outcome.message}` });
  };

  /** A domain refusal on the page: someone else's purchase is "not found", anything else is said on the page. */
  const refused = (reply: FastifyReply, token: string, scope: Scope, email: string, err: unknown) => {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'NOT_FOUND') return problem(reply, 404, 'Not found', 'That purchase is not one of yours.');
    return render(reply, token, scope, email, 400, { error: err.message });
  };

  app.get<{
    Params: { token: string };
    Querystring: { done?: string; confirmed?: string; transactionId?: string; cardSession?: string };
  }>('/manage/:token', { schema: { hide: true } }, async (request, reply) => {
    const token = request.params.token;
    const opened = open(reply, token);
    if ('reply' in opened) return opened.reply;
    const { scope, email } = opened;
    const query = request.query;
    try {
      // Back from the processor (or reloaded while the bank was still at it): ask the processor where it stands.
      if (typeof query.confirmed === 'string' && query.confirmed) {
        const outcome = await services.portal.authenticated(scope, email, query.confirmed);
        if (outcome === 'PENDING') return render(reply, token, scope, email, 202, { notice: STILL_CONFIRMING });
        return afterAuthentication(reply, token, scope, email, query.confirmed, outcome);
      }
      if (typeof query.cardSession === 'string' && query.cardSession && typeof query.transactionId === 'string') {
        const outcome = await services.portal.completeCardSession(scope, email, query.transactionId, query.cardSession);
        if (outcome.status === 'PENDING') return render(reply, token, scope, email, 202, { notice: CARD_PENDING });
        return afterCardSession(reply, token, scope, email, query.transactionId, query.cardSession, outcome);
      }
    } catch (err) {
      return refused(reply, token, scope, email, err);
    }
    return render(reply, token, scope, email, 200, { notice: NOTICES[query.done ?? ''] });
  });

  app.post<{ Params: { token: string }; Body: FormBody }>(
    '/manage/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      const token = request.params.token;
      const opened = open(reply, token);
      if ('reply' in opened) return opened.reply;
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
          if (!/^\d{3,4}$/.test((form.cardCvc ?? '').trim()))
            throw new AppError('INVALID_INPUT', 'Enter the 3 or 4 digit security code (CVC) of the card.');
          const result = await services.portal.updateCard(scope, email, id, {
            number: (form.cardNumber ?? '').replace(/[\s-]/g, ''),
            expMonth: Number(expiry[1]),
            expYear: Number(expiry[2]),
            cvc: form.cardCvc,
          });
          if (result.status === 'DECLINED')
            return render(reply, token, scope, email, 402, { error: `The card was not accepted: ${result.message}` });
          return reply.redirect('?done=card', 303);
        }
        if (form.action === 'card-complete') {
          const cardSession = form.cardSession ?? '';
          // Without JavaScript the processor's card field never appeared, so there is no session to finish.
          if (!cardSession)
            throw new AppError(
              'INVALID_INPUT',
              'The card field needs JavaScript: turn it on, reload the page and enter the new card.',
            );
          const outcome = await services.portal.completeCardSession(scope, email, id, cardSession);
          return afterCardSession(reply, token, scope, email, id, cardSession, outcome);
        }
        if (form.action === 'authenticated') {
          return afterAuthentication(
            reply,
            token,
            scope,
            email,
            id,
            await services.portal.authenticated(scope, email, id),
          );
        }
        return render(reply, token, scope, email, 400, { error: 'Unknown action; reload the page and try again.' });
      } catch (err) {
        return refused(reply, token, scope, email, err);
      }
    },
  );

  /**
   * The JSON endpoints of the processor's script: same link, same form token, same "not yours is not
   * found"; every failure, a body the page parser refused included, is `{error, message}`.
   */
  const json = (
    path: string,
    handle: (scope: Scope, email: string, id: string) => Promise<{ status: number; body: Record<string, unknown> }>,
  ) =>
    app.post<{ Params: { token: string }; Body: FormBody }>(
      `/manage/:token/${path}`,
      {
        schema: { hide: true },
        errorHandler: jsonErrorHandler,
      },
      async (request, reply) => {
        const send = (status: number, error: WireErrorCode, message: string) =>
          reply.code(status).header('cache-control', 'no-store').send({ error, message });
        const token = request.params.token;
        const opened = check(token);
        if (opened.status === 'expired')
          return send(410, 'LINK_EXPIRED', 'This link has expired; ask the seller for a new one.');
        if (opened.status !== 'open') return send(404, 'NOT_FOUND', 'This link is not valid.');
        const form = (request.body ?? {}) as FormBody;
        // The form token is the page's proof that the request comes from it: without it, 403 as for the page's forms.
        if (!services.links.formTokenMatches(token, form.formToken ?? ''))
          return send(403, 'UNAUTHORIZED', 'This page has expired; reload it and try again.');
        if (cardEntry().kind !== 'browser') return send(404, 'NOT_FOUND', 'This page takes the card in its own form.');
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

  json('authentication/session', async (scope, email, id) => ({
    status: 200,
    body: await services.portal.authenticationSession(scope, email, id),
  }));

  json('card/session', async (scope, email, id) => {
    const started = await services.portal.startCardSession(scope, email, id);
    if ('status' in started)
      return { status: 402, body: { error: 'PAYMENT_DECLINED' satisfies WireErrorCode, message: started.message } };
    return { status: 200, body: { clientSecret: started.clientSecret, cardSession: started.cardSession } };
  });
}
