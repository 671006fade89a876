import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { OPERATOR_SESSION_MS, type OperatorSession } from '../../../domain/accounts/index.ts';
import type { Environment } from '../../../domain/model.ts';
import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { html, sendPage, type Html } from '../layout.ts';
import { pageScript } from '../page-scripts.ts';
import { cookieOf, cookieSetter, same } from '../panel/panel-cookies.ts';
import { PANEL_STYLE } from '../panel/panel-layout.ts';
import {
  OPERATOR_NOTICES,
  OPERATOR_STYLE,
  operatorHref,
  operatorPage,
  operatorSignInPage,
  type OperatorSection,
} from './operator-layout.ts';

export const OPERATOR_COOKIE = 'ot_operator';
const SIGN_IN_CSRF_COOKIE = 'ot_operator_csrf';

type Params = Record<string, string>;
export type OperatorView<P extends Params> = (
  session: OperatorSession,
  environment: Environment,
  request: FastifyRequest<{ Params: P }>,
  reply: FastifyReply,
) => Promise<unknown>;
export type OperatorAction<P extends Params> = (
  session: OperatorSession,
  environment: Environment,
  form: FormBody,
  request: FastifyRequest<{ Params: P }>,
  reply: FastifyReply,
) => Promise<unknown>;
/** What a form shows when the domain refuses it: usually its page again, with the error. */
export type OperatorRefusal<P extends Params> = (
  error: AppError,
  session: OperatorSession,
  environment: Environment,
  request: FastifyRequest<{ Params: P }>,
  reply: FastifyReply,
) => Promise<unknown>;

export interface OperatorRouting {
  services: Services;
  view<P extends Params>(path: string, run: OperatorView<P>): void;
  action<P extends Params>(path: string, run: OperatorAction<P>, refused: OperatorRefusal<P>): void;
  page(
    reply: FastifyReply,
    view: { session: OperatorSession; environment: Environment; request: FastifyRequest },
    section: OperatorSection,
    title: string,
    content: Html,
    options?: { status?: number; error?: string | undefined },
  ): unknown;
  /** A 303 to a console page, with what to say there. */
  to(reply: FastifyReply, path: string, environment: Environment, done?: string): unknown;
}

const environmentOf = (request: FastifyRequest): Environment =>
  (request.query as { env?: string }).env === 'sandbox' ? 'sandbox' : 'production';

/**
 * The operator's console at /operator (docs/decisions.md §26): its sign-in and sign-out, and the one
 * context its sections register their pages over. The panel's machinery, under its own cookie and
 * path: a session cookie kept only as a SHA-256, an anti-forgery token on every form, a double-submit
 * token on the sign-in form, 20 sign-ins a minute per address. Production is the default side: an
 * operator's books are about real money.
 */
export function operatorRouting(app: HttpApp, services: Services): OperatorRouting {
  const setCookie = cookieSetter(services.config.baseUrl, '/operator');
  registerSignIn(app, services, setCookie);

  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const session = await services.operators.session(cookieOf(request, OPERATOR_COOKIE));
    if (!session) {
      await reply.redirect('/operator/signin', 303);
      return undefined;
    }
    if (request.method === 'POST' && !same(((request.body ?? {}) as FormBody).csrf ?? '', session.csrfToken)) {
      await showSignIn(reply, setCookie, { error: 'This form has expired. Reload the page and try again.' }, 403);
      return undefined;
    }
    return session;
  };

  app.post('/operator/signout', { schema: { hide: true } }, async (request, reply) => {
    if (!(await signedIn(request, reply))) return reply;
    await services.operators.signOut(cookieOf(request, OPERATOR_COOKIE));
    setCookie(reply, OPERATOR_COOKIE, '', 0);
    return reply.redirect('/operator/signin', 303);
  });

  return {
    services,
    view: (path, run) => {
      app.get<{ Params: Params }>(path, { schema: { hide: true } }, async (request, reply) => {
        const session = await signedIn(request, reply);
        return session ? run(session, environmentOf(request), request as never, reply) : reply;
      });
    },
    action: (path, run, refused) => {
      app.post<{ Params: Params }>(path, { schema: { hide: true } }, async (request, reply) => {
        const session = await signedIn(request, reply);
        if (!session) return reply;
        const environment = environmentOf(request);
        try {
          return await run(session, environment, (request.body ?? {}) as FormBody, request as never, reply);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return refused(err, session, environment, request as never, reply);
        }
      });
    },
    page: (reply, { session, environment, request }, section, title, content, options = {}) =>
      sendPage(reply, {
        status: options.status ?? 200,
        title: `${title} · Operator`,
        script: pageScript('panel'),
        style: PANEL_STYLE + OPERATOR_STYLE,
        body: operatorPage(
          {
            email: session.user.email,
            environment,
            csrf: session.csrfToken,
            notice: OPERATOR_NOTICES[(request.query as { done?: string }).done ?? ''],
            error: options.error,
          },
          section,
          title,
          content,
        ),
      }),
    to: (reply, path, environment, done) => reply.redirect(operatorHref(path, environment, { done }), 303),
  };
}

type SetCookie = ReturnType<typeof cookieSetter>;

function showSignIn(
  reply: FastifyReply,
  setCookie: SetCookie,
  view: { error?: string; email?: string | undefined },
  status = 200,
) {
  const csrf = randomBytes(18).toString('base64url');
  setCookie(reply, SIGN_IN_CSRF_COOKIE, csrf, 3600);
  return sendPage(reply, { status, title: 'Sign in · Operator', body: operatorSignInPage({ ...view, csrf }) });
}

function registerSignIn(app: HttpApp, services: Services, setCookie: SetCookie) {
  const limited = { schema: { hide: true }, config: { rateLimit: { max: 20, timeWindow: 60_000 } } };
  app.get('/operator/signin', { schema: { hide: true } }, (_request, reply) => showSignIn(reply, setCookie, {}));
  app.post('/operator/signin', limited, async (request, reply) => {
    const form = (request.body ?? {}) as FormBody;
    const expected = cookieOf(request, SIGN_IN_CSRF_COOKIE);
    if (!expected || !same(form.csrf ?? '', expected))
      return showSignIn(reply, setCookie, { error: 'This form has expired. Try again.' }, 403);
    try {
      const { cookie } = await services.operators.signIn(form);
      setCookie(reply, OPERATOR_COOKIE, cookie, OPERATOR_SESSION_MS / 1000);
      return reply.redirect('/operator', 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return showSignIn(reply, setCookie, { error: err.message, email: form.email }, 401);
    }
  });
}

/** The page of something the console has no such one of. */
export const nothingHere = (what: string) => html`<p>There is no ${what} here.</p>`;
