import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Translator } from '../../../i18n/index.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { html, sendPage } from '../layout.ts';
import { buyerTranslator, speechOf } from '../buyer-language.ts';

type Params = { Params: { token: string } };

/**
 * The link of a sign-in e-mail, `/manage/open/{token}` (docs/decisions.md §34). Opening it shows a
 * button; pressing the button uses the link up and goes to the management page. A GET never uses it:
 * mail scanners and link previews fetch links before the customer does.
 */
export function registerOpenSignIn(app: HttpApp, context: EnvironmentContext) {
  const { services, environment } = context;

  app.get<Params>('/manage/open/:token', { schema: { hide: true } }, async (request, reply) => {
    const tr = buyerTranslator(request);
    const vendorId = await services.portal.signInVendor(environment, request.params.token);
    const vendor = vendorId ? await services.catalog.findVendor(vendorId) : undefined;
    if (!vendor) return usedOrExpired(reply, tr, undefined);
    reply.header('referrer-policy', 'no-referrer');
    return sendPage(reply, {
      status: 200,
      title: tr.t('manage.openTitle'),
      speech: speechOf(tr),
      body: html`<h1>${tr.t('manage.openTitle')}</h1><p>${tr.t('manage.openText', { vendor: vendor.name })}</p>
      <form method="post"><button type="submit" data-testid="open">${tr.t('manage.openButton')}</button></form>`,
    });
  });

  app.post<Params>('/manage/open/:token', { schema: { hide: true } }, async (request, reply) => {
    const tr = buyerTranslator(request);
    const url = await services.portal.openSignIn(environment, request.params.token);
    if (!url) return usedOrExpired(reply, tr, await services.portal.signInVendor(environment, request.params.token));
    const page = new URL(url);
    // The language the customer asked in goes on; otherwise the page speaks the one they bought in.
    if (localeAsked(request)) page.searchParams.set('locale', tr.locale);
    // Relative, so the sandbox's prefix and the server's own host are kept.
    return reply.redirect(`../${page.pathname.split('/').at(-1)}${page.search}`, 303);
  });
}

const localeAsked = (request: FastifyRequest) => Boolean((request.query as Record<string, string>).locale);

/** A link used, expired or unknown: the same page, with a way to ask for a new one when its vendor is known. */
function usedOrExpired(reply: FastifyReply, tr: Translator, vendorId: string | undefined) {
  return sendPage(reply, {
    status: 410,
    title: tr.t('manage.openUsedTitle'),
    speech: speechOf(tr),
    body: html`<h1>${tr.t('manage.openUsedTitle')}</h1><p>${tr.t('manage.openUsedText')}</p>${
      vendorId
        ? html`<p><a href="../sign-in/${vendorId}?locale=${tr.locale}" data-testid="new-link">${tr.t('manage.newLink')}</a></p>`
        : ''
    }`,
  });
}
