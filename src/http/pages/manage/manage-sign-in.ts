import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Vendor } from '../../../domain/model.ts';
import { supportAddress } from '../../../domain/notifications/index.ts';
import { requireEmail } from '../../../domain/validation.ts';
import type { Translator } from '../../../i18n/index.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { limitEachNamedKey, type Checked } from '../../rate-limits.ts';
import type { FormBody } from '../form-body.ts';
import { html, sendPage } from '../layout.ts';
import { buyerTranslator, speechOf } from '../buyer-language.ts';
import { sendManageProblem } from './manage-speech.ts';

/**
 * Sign-in by e-mail (docs/decisions.md §34): `/manage/sign-in/{vendorId}` asks for the address the
 * customer paid with and answers the same whether or not it bought anything, before anything is
 * looked up (the lookup and the e-mail run after the answer, so the time taken tells nothing either).
 * Requests are limited per typed address (across every vendor: an inbox cannot be flooded through
 * many shops) and per client address, counted where the other limits are (Redis with REDIS_URL).
 */
export const SIGN_IN_LIMITS = {
  perEmail: { max: 5, windowMs: 3_600_000 },
  perClient: { max: 20, windowMs: 3_600_000 },
};

type Params = { Params: { vendorId: string }; Body: FormBody };

function signInForm(tr: Translator, vendor: Vendor, email = '', error?: string) {
  const message = error ? html`<p class="field-error" id="email-error">${error}</p>` : '';
  return html`<h1>${tr.t('manage.signInTitle', { vendor: vendor.name })}</h1>
  <p>${tr.t('manage.signInIntro')}</p>
  <form method="post" data-testid="sign-in"><label for="email">${tr.t('manage.signInEmail')}</label>
  <input id="email" name="email" type="email" autocomplete="email" dir="ltr" required value="${email}"${error ? html` aria-invalid="true" aria-describedby="email-error"` : ''}>${message}
  <button type="submit">${tr.t('manage.signInButton')}</button></form>`;
}

async function vendorOf(context: EnvironmentContext, request: FastifyRequest<Params>, reply: FastifyReply) {
  const tr = buyerTranslator(request);
  const vendor = /^TC-VE_[A-Za-z0-9]{1,60}$/.test(request.params.vendorId)
    ? await context.services.catalog.findVendor(request.params.vendorId)
    : undefined;
  if (!vendor) return { reply: sendManageProblem(reply, tr, 404, 'notFoundTitle', 'linkInvalidText') };
  return { vendor, tr };
}

function showForm(context: EnvironmentContext, reply: FastifyReply, tr: Translator, vendor: Vendor) {
  if (!context.services.portal.signInAvailable()) {
    const support = supportAddress(vendor);
    return sendPage(reply, {
      status: 200,
      title: tr.t('manage.signInTitle', { vendor: vendor.name }),
      speech: speechOf(tr),
      body: html`<h1>${tr.t('manage.signInTitle', { vendor: vendor.name })}</h1><p data-testid="sign-in-off">${tr.html('manage.signInOff', { vendor: vendor.name, support: html`<a href="mailto:${support}">${support}</a>` })}</p>`,
    });
  }
  return sendPage(reply, {
    status: 200,
    title: tr.t('manage.signInTitle', { vendor: vendor.name }),
    speech: speechOf(tr),
    body: signInForm(tr, vendor),
  });
}

export function registerSignIn(app: HttpApp, context: EnvironmentContext) {
  const { services, environment } = context;
  const redis = services.config.redis !== undefined;
  const perEmail = limitEachNamedKey(app, { redis, name: 'portal-sign-in-email', ...SIGN_IN_LIMITS.perEmail });
  const perClient = limitEachNamedKey(app, { redis, name: 'portal-sign-in-client', ...SIGN_IN_LIMITS.perClient });

  app.get<Params>('/manage/sign-in/:vendorId', { schema: { hide: true } }, async (request, reply) => {
    const found = await vendorOf(context, request, reply);
    return 'reply' in found ? found.reply : showForm(context, reply, found.tr, found.vendor);
  });

  app.post<Params>('/manage/sign-in/:vendorId', { schema: { hide: true } }, async (request, reply) => {
    const found = await vendorOf(context, request, reply);
    if ('reply' in found) return found.reply;
    const { vendor, tr } = found;
    if (!services.portal.signInAvailable()) return showForm(context, reply, tr, vendor);
    const typed = String(request.body?.email ?? '').trim();
    let email: string;
    try {
      email = requireEmail(typed).toLowerCase();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const body = signInForm(tr, vendor, typed.slice(0, 254), tr.t('manage.signInBadEmail'));
      return sendPage(reply, { status: 400, title: tr.t('manage.signInBadEmail'), speech: speechOf(tr), body });
    }
    // The client first, so one client trying many addresses is stopped before it counts against them.
    const limited =
      (await over(perClient(`${normalizeIP(request.ip)}`, request))) ?? (await over(perEmail(email, request)));
    if (limited !== undefined) {
      reply.header('retry-after', String(limited));
      const minutes = Math.max(1, Math.ceil(limited / 60));
      return sendManageProblem(reply, tr, 429, 'signInLimitedTitle', 'signInLimited', { minutes });
    }
    const scope = { vendorId: vendor.id, environment };
    // Answered before the lookup and the e-mail: the same page, in the same time, whoever asks.
    void services.portal
      .requestSignIn(scope, email, tr.locale)
      .catch((err: unknown) => request.log.error({ err }, 'portal sign-in e-mail failed'));
    return sendPage(reply, {
      status: 200,
      title: tr.t('manage.signInSentTitle'),
      speech: speechOf(tr),
      body: html`<h1>${tr.t('manage.signInSentTitle')}</h1><p data-testid="sign-in-sent">${tr.t('manage.signInSent', { email, vendor: vendor.name })}</p>`,
    });
  });
}

/** Seconds to wait when over the limit, else undefined. */
async function over(checked: Checked | Promise<Checked>): Promise<number | undefined> {
  const { exceeded, retryAfterSeconds } = await checked;
  return exceeded ? Math.max(1, retryAfterSeconds) : undefined;
}
