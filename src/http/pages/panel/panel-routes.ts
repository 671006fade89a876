import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { paymentLink } from '../../../domain/catalog.ts';
import { AppError } from '../../../domain/errors.ts';
import { parsePriceText } from '../../../domain/price-text.ts';
import type { Environment, Scope } from '../../../domain/model.ts';
import { PANEL_SESSION_MS, type PanelSession } from '../../../domain/panel-accounts.ts';
import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { sendPage } from '../layout.ts';
import { authPage, COPY_SCRIPT, dashboard, type PanelView } from './panel-views.ts';

const SESSION_COOKIE = 'ot_panel';
const LOGIN_CSRF_COOKIE = 'ot_panel_csrf';

const cookieOf = (request: FastifyRequest, name: string) => new RegExp(`(?:^|;\\s*)${name}=([A-Za-z0-9_-]{1,100})`).exec(request.headers.cookie ?? '')?.[1];
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The vendor panel at {panel_url} = {base_url}/panel ({sandbox_panel_url} opens it on the sandbox):
 * sign-up and sign-in, then one page per environment with the API credentials, the products and
 * their snippets, the transactions (the admin tool) and the settings. Sessions are HttpOnly,
 * SameSite=Lax cookies (Secure on https); every form carries the session's anti-forgery token.
 */
export function registerPanel(app: HttpApp, { services }: { services: Services }) {
  const secure = services.config.baseUrl.startsWith('https:') ? '; Secure' : '';
  const setCookie = (reply: FastifyReply, name: string, value: string, maxAgeSeconds: number) =>
    reply.header('set-cookie', `${name}=${value}; Path=/panel; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`);
  const environmentOf = (request: FastifyRequest): Environment => ((request.query as { env?: string }).env === 'production' ? 'production' : 'sandbox');

  const showAuth = (reply: FastifyReply, mode: 'signin' | 'signup', status = 200, error?: string, email?: string) => {
    const csrf = randomBytes(18).toString('base64url');
    setCookie(reply, LOGIN_CSRF_COOKIE, csrf, 3600);
    return sendPage(reply, { status, title: mode === 'signup' ? 'Create your account' : 'Sign in', body: authPage({ mode, csrf, error, email }) });
  };

  const render = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    status = 200,
    extra: Pick<PanelView, 'issued' | 'notice' | 'error'> = {},
  ) => {
    const scope: Scope = { vendorId: session.user.vendorId, environment };
    const vendor = await services.catalog.requireVendor(scope.vendorId);
    const credentials = (await services.credentials.list(scope.vendorId)).filter((c) => c.environment === environment);
    return sendPage(reply, {
      status,
      title: 'Vendor panel',
      script: COPY_SCRIPT,
      body: dashboard({
        vendor,
        email: session.user.email,
        environment,
        csrf: session.csrfToken,
        credentials,
        products: await services.catalog.listProducts(scope),
        coupons: await services.coupons.list(scope),
        apiBase: services.urls.base(environment),
        widgetUrl: `${services.config.baseUrl}/latest/widget${environment === 'sandbox' ? '.sandbox' : ''}.min.js`,
        paymentLink: (id) => paymentLink(services.urls.base(environment), id),
        ...extra,
      }),
    });
  };

  /** The signed-in session, after checking the form's anti-forgery token on a POST. */
  const signedIn = async (request: FastifyRequest, reply: FastifyReply): Promise<PanelSession | undefined> => {
    const session = await services.panel.session(cookieOf(request, SESSION_COOKIE));
    if (!session) {
      await reply.redirect('/panel/signin', 303);
      return undefined;
    }
    if (request.method === 'POST' && !same(((request.body ?? {}) as FormBody).csrf ?? '', session.csrfToken)) {
      await sendPage(reply, {
        status: 403,
        title: 'Refused',
        body: authPage({ mode: 'signin', csrf: '', error: 'This form has expired. Reload the page and try again.' }),
      });
      return undefined;
    }
    return session;
  };

  app.get('/panel/signin', { schema: { hide: true } }, (_request, reply) => showAuth(reply, 'signin'));
  app.get('/panel/signup', { schema: { hide: true } }, (_request, reply) => showAuth(reply, 'signup'));

  for (const mode of ['signin', 'signup'] as const) {
    app.post(`/panel/${mode}`, { schema: { hide: true }, config: { rateLimit: { max: 20, timeWindow: 60_000 } } }, async (request, reply) => {
      const form = (request.body ?? {}) as FormBody;
      const expected = cookieOf(request, LOGIN_CSRF_COOKIE);
      if (!expected || !same(form.csrf ?? '', expected)) return showAuth(reply, mode, 403, 'This form has expired. Try again.');
      try {
        const { cookie } = mode === 'signup' ? await services.panel.signUp(form) : await services.panel.signIn(form);
        setCookie(reply, SESSION_COOKIE, cookie, PANEL_SESSION_MS / 1000);
        return reply.redirect('/panel', 303);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return showAuth(reply, mode, err.code === 'UNAUTHORIZED' ? 401 : 400, err.message, form.email);
      }
    });
  }

  app.post('/panel/signout', { schema: { hide: true } }, async (request, reply) => {
    if (!(await signedIn(request, reply))) return reply;
    await services.panel.signOut(cookieOf(request, SESSION_COOKIE));
    setCookie(reply, SESSION_COOKIE, '', 0);
    return reply.redirect('/panel/signin', 303);
  });

  app.get('/panel', { schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const done = (request.query as { done?: string }).done;
    const notices: Record<string, string> = {
      product: 'The product is created.',
      'product-saved': 'The product is saved.',
      coupon: 'The coupon is created.',
      'coupon-revoked': 'The coupon is revoked.',
      settings: 'The settings are saved.',
      revoked: 'The credential is revoked.',
      'admin-sessions': 'Every admin tool session of this environment has ended.',
    };
    return render(reply, session, environmentOf(request), 200, { notice: done ? notices[done] : undefined });
  });

  // Every action answers with the page again (or a redirect to it); errors are shown on it.
  const action = (path: string, run: (session: PanelSession, scope: Scope, form: FormBody, reply: FastifyReply) => Promise<unknown>) =>
    app.post(path, { schema: { hide: true } }, async (request, reply) => {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      const environment = environmentOf(request);
      try {
        return await run(session, { vendorId: session.user.vendorId, environment }, (request.body ?? {}) as FormBody, reply);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return render(reply, session, environment, 400, { error: err.message });
      }
    });

  action('/panel/credentials', async (session, scope, form, reply) => {
    if (form.action === 'create') return render(reply, session, scope.environment, 200, { issued: await services.credentials.issue(scope) });
    if (!(await services.credentials.revoke(scope, form.id ?? ''))) throw new AppError('NOT_FOUND', 'There is no such credential.');
    return reply.redirect(`/panel?env=${scope.environment}&done=revoked`, 303);
  });

  action('/panel/products', async (_session, scope, form, reply) => {
    const trialDays = form.trialDays ? Number(form.trialDays) : 0;
    if (!Number.isInteger(trialDays) || trialDays < 0) throw new AppError('INVALID_INPUT', 'Trial days must be a whole number of days.');
    await services.catalog.createProduct(scope, {
      name: form.name ?? '',
      type: form.type ?? '',
      chargeFrequency: form.type === 'SUBSCRIPTION' ? form.frequency : undefined,
      trialDays: form.type === 'SUBSCRIPTION' ? trialDays : 0,
      issuesLicences: form.licences === 'yes',
      prices: parsePriceText(form.prices),
    });
    return reply.redirect(`/panel?env=${scope.environment}&done=product`, 303);
  });

  action('/panel/products/edit', async (_session, scope, form, reply) => {
    const trialDays = form.trialDays ? Number(form.trialDays) : undefined;
    await services.catalog.updateProduct(scope, form.id ?? '', {
      name: form.name ?? '',
      trialDays,
      issuesLicences: form.licences === 'yes',
      prices: parsePriceText(form.prices),
    });
    return reply.redirect(`/panel?env=${scope.environment}&done=product-saved`, 303);
  });

  action('/panel/coupons', async (_session, scope, form, reply) => {
    if (form.action === 'revoke') {
      await services.coupons.revoke(scope, form.id ?? '');
      return reply.redirect(`/panel?env=${scope.environment}&done=coupon-revoked`, 303);
    }
    const off = (form.off ?? '').trim();
    const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(off);
    await services.coupons.create(scope, {
      productId: form.productId ?? '',
      code: form.code ?? '',
      ...(percent ? { percentOff: percent[1] } : { amountsOff: parsePriceText(off) }),
      expiresAt: form.expiresAt ? `${form.expiresAt}T23:59:59.999Z` : undefined,
    });
    return reply.redirect(`/panel?env=${scope.environment}&done=coupon`, 303);
  });

  action('/panel/settings', async (session, scope, form, reply) => {
    await services.catalog.updateVendorSettings(session.user.vendorId, {
      allowConversion: form.allowConversion === 'yes',
      adminFrameOrigins: (form.adminFrameOrigins ?? '').split(/[\s,]+/).filter(Boolean),
    });
    return reply.redirect(`/panel?env=${scope.environment}&done=settings`, 303);
  });

  // The transactions pages are the admin tool's, opened with a fresh session for this vendor that
  // ends when this panel session does (sign-out or expiry).
  action('/panel/transactions', async (session, scope, _form, reply) => {
    const token = await services.adminSessions.openFromPanel(scope, session);
    const prefix = scope.environment === 'sandbox' ? '/sandbox' : '';
    return reply.redirect(`${prefix}/admin/s/${token}`, 303);
  });

  action('/panel/admin-sessions', async (_session, scope, _form, reply) => {
    await services.adminSessions.revokeAll(scope);
    return reply.redirect(`/panel?env=${scope.environment}&done=admin-sessions`, 303);
  });

  app.get('/sandbox/panel', { schema: { hide: true } }, (_request, reply) => reply.redirect('/panel?env=sandbox', 302));
}
