import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { PANEL_SESSION_MS } from '../../../domain/accounts/index.ts';
import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { sendPage, sendProblem } from '../layout.ts';
import { signedIn as signedInSession } from './panel-context.ts';
import { cookieOf, cookieSetter, LOGIN_CSRF_COOKIE, same, SESSION_COOKIE } from './panel-cookies.ts';
import { authPage, signUpRefusedPage } from './panel-views.ts';

type AuthView = Omit<Parameters<typeof authPage>[0], 'csrf' | 'signUpMode'>;

/** Sign-in and sign-up take 20 attempts a minute per address (docs/decisions.md §19). */
const LIMITED = { schema: { hide: true }, config: { rateLimit: { max: 20, timeWindow: 60_000 } } };

/**
 * Signing in and signing up (docs/decisions.md §19): `/panel/signin`; `/panel/signup` where anyone
 * may sign up (PANEL_SIGNUP=open), else a page that says how an account is made; and
 * `/panel/signup/{token}`, the invitation `opentill vendor invite --email` prints. The domain decides
 * who may sign up; these pages only say it. Each form carries a double-submit token.
 */
export function registerPanelAuth(app: HttpApp, { services }: { services: Services }) {
  const setCookie = cookieSetter(services.config.baseUrl);
  const mode = services.panel.signUpMode;

  const showAuth = (reply: FastifyReply, view: AuthView, status = 200) => {
    const csrf = randomBytes(18).toString('base64url');
    setCookie(reply, LOGIN_CSRF_COOKIE, csrf, 3600);
    const title = view.mode === 'signup' ? 'Create your account' : 'Sign in';
    return sendPage(reply, { status, title, body: authPage({ ...view, csrf, signUpMode: mode }) });
  };
  const refused = (reply: FastifyReply) =>
    mode === 'open'
      ? sendProblem(reply, 403, 'Not available', 'Sign-up is open here: create an account at /panel/signup.')
      : sendPage(reply, {
          status: 403,
          title: mode === 'closed' ? 'Sign-up is closed' : 'Sign-up is by invitation',
          body: signUpRefusedPage(mode),
        });
  const formOf = (request: FastifyRequest) => (request.body ?? {}) as FormBody;
  const tokenMatches = (request: FastifyRequest, form: FormBody) => {
    const expected = cookieOf(request, LOGIN_CSRF_COOKIE);
    return !!expected && same(form.csrf ?? '', expected);
  };
  const signedIn = (reply: FastifyReply, cookie: string) => {
    setCookie(reply, SESSION_COOKIE, cookie, PANEL_SESSION_MS / 1000);
    return reply.redirect('/panel', 303);
  };

  app.get('/panel/signin', { schema: { hide: true } }, (_request, reply) => showAuth(reply, { mode: 'signin' }));
  app.post('/panel/signin', LIMITED, async (request, reply) => {
    const form = formOf(request);
    if (!tokenMatches(request, form))
      return showAuth(reply, { mode: 'signin', error: 'This form has expired. Try again.' }, 403);
    try {
      return signedIn(reply, (await services.panel.signIn(form)).cookie);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return showAuth(
        reply,
        { mode: 'signin', error: err.message, email: form.email },
        err.code === 'UNAUTHORIZED' ? 401 : 400,
      );
    }
  });

  app.get('/panel/signup', { schema: { hide: true } }, (_request, reply) =>
    mode === 'open' ? showAuth(reply, { mode: 'signup' }) : refused(reply),
  );
  app.post('/panel/signup', LIMITED, async (request, reply) => {
    const form = formOf(request);
    if (!tokenMatches(request, form))
      return mode === 'open'
        ? showAuth(reply, { mode: 'signup', error: 'This form has expired. Try again.' }, 403)
        : refused(reply);
    try {
      return signedIn(
        reply,
        (await services.panel.signUp({ company: form.company, email: form.email, password: form.password })).cookie,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'FORBIDDEN') return refused(reply);
      return showAuth(reply, { mode: 'signup', error: err.message, email: form.email }, 400);
    }
  });

  registerInvitedSignUp(app, { services, showAuth, refused, tokenMatches, signedIn });
}

/** Signing out (a form of every signed-in page): the session ends and its cookie goes. */
export function registerSignOut(app: HttpApp, { services }: { services: Services }) {
  const setCookie = cookieSetter(services.config.baseUrl);
  app.post('/panel/signout', { schema: { hide: true } }, async (request, reply) => {
    if (!(await signedInSession(services, request, reply))) return reply;
    await services.panel.signOut(cookieOf(request, SESSION_COOKIE));
    setCookie(reply, SESSION_COOKIE, '', 0);
    return reply.redirect('/panel/signin', 303);
  });
}

/** `/panel/signup/{token}`: the form of an invitation, for its e-mail; a forged link is 404, a spent or old one 410. */
function registerInvitedSignUp(
  app: HttpApp,
  helpers: {
    services: Services;
    showAuth: (reply: FastifyReply, view: AuthView, status?: number) => unknown;
    refused: (reply: FastifyReply) => unknown;
    tokenMatches: (request: FastifyRequest, form: FormBody) => boolean;
    signedIn: (reply: FastifyReply, cookie: string) => unknown;
  },
) {
  const { services, showAuth, refused, tokenMatches, signedIn } = helpers;
  const unusable = (reply: FastifyReply, status: 'invalid' | 'expired' | 'used') =>
    status === 'invalid'
      ? sendProblem(
          reply,
          404,
          'This invitation is not valid',
          'Check that you copied the whole link, or ask the operator of this server for a new one.',
        )
      : sendProblem(
          reply,
          410,
          'This invitation can no longer be used',
          'It was used already or is older than a week. Ask the operator of this server for a new one.',
        );
  const action = (token: string) => `/panel/signup/${encodeURIComponent(token)}`;

  app.get<{ Params: { token: string } }>('/panel/signup/:token', { schema: { hide: true } }, async (request, reply) => {
    if (services.panel.signUpMode === 'closed') return refused(reply);
    const found = await services.panelInvites.checkSignUp(request.params.token);
    if (found.status !== 'valid') return unusable(reply, found.status);
    return showAuth(reply, { mode: 'signup', invited: { email: found.email, action: action(request.params.token) } });
  });

  app.post<{ Params: { token: string } }>('/panel/signup/:token', LIMITED, async (request, reply) => {
    const { token } = request.params;
    const form = (request.body ?? {}) as FormBody;
    const found = await services.panelInvites.checkSignUp(token);
    const invited = found.status === 'valid' ? { email: found.email, action: action(token) } : undefined;
    if (!tokenMatches(request, form)) {
      if (services.panel.signUpMode === 'closed') return refused(reply);
      if (found.status !== 'valid') return unusable(reply, found.status);
      return showAuth(reply, { mode: 'signup', invited, error: 'This form has expired. Try again.' }, 403);
    }
    try {
      return signedIn(
        reply,
        (await services.panel.signUp({ company: form.company, password: form.password, invitation: token })).cookie,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'FORBIDDEN') return refused(reply);
      if (err.code === 'NOT_FOUND') return unusable(reply, 'invalid');
      if (err.code === 'LINK_EXPIRED') return unusable(reply, 'used');
      return showAuth(reply, { mode: 'signup', invited, error: err.message }, 400);
    }
  });
}
