import type { FastifyReply } from 'fastify';
import { invalidInput } from '../../../domain/errors.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { emailKind, emailPreviewContent, emailsContent, emailSettingsOf, KIND_WORDS } from './emails.ts';
import type { PageExtra, PanelRouting } from './panel-routing.ts';

/** The panel's E-mails section (src/http/pages/panel/emails.ts draws it): settings, previews, test e-mails, the recent ones. */
export function registerEmailPages({ services, view, action, page, notFound, to, noticeOf }: PanelRouting) {
  const emailsPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: PageExtra = {},
  ) => {
    const content = emailsContent({
      environment,
      csrf: session.csrfToken,
      vendor: await services.catalog.requireVendor(session.user.vendorId),
      sendingFrom: services.emails.enabled ? services.config.smtp?.from : undefined,
      sandboxToVendor: services.config.smtp?.sandboxTo !== 'customers',
      emails: await services.emails.list({ vendorId: session.user.vendorId, environment }, 50),
      form: extra.form,
    });
    return page(reply, session, environment, 'emails', 'E-mails', content, extra);
  };

  view('/panel/emails', (session, environment, request, reply) => {
    const done = (request.query as { done?: string }).done;
    if (done === 'test-sent')
      return emailsPage(reply, session, environment, {
        notice: `A test e-mail is on its way to ${session.user.email}.`,
      });
    if (done === 'test-off')
      return emailsPage(reply, session, environment, { error: 'E-mails are off: SMTP is not configured.' });
    return emailsPage(reply, session, environment, { notice: noticeOf(request) });
  });

  // Sample data, so it works without SMTP; the e-mail's inline styles need style attributes allowed.
  view<{ kind: string }>('/panel/emails/preview/:kind', async (session, environment, request, reply) => {
    const kind = emailKind(request.params.kind);
    if (!kind) return notFound(reply, session, environment, 'emails', 'such e-mail');
    const email = services.emails.preview(
      await services.catalog.requireVendor(session.user.vendorId),
      kind,
      environment,
    );
    const content = emailPreviewContent({ environment, kind, email, enabled: services.emails.enabled });
    return page(reply, session, environment, 'emails', `Preview: ${KIND_WORDS[kind].label}`, content, {
      switchPath: `/panel/emails/preview/${kind}`,
      styleAttributes: true,
    });
  });

  action(
    '/panel/emails',
    (reply, session, environment, error, form) => emailsPage(reply, session, environment, { status: 400, error, form }),
    async (session, scope, form, reply) => {
      await services.catalog.updateVendorSettings(session.user.vendorId, { emails: emailSettingsOf(form) });
      return to(reply, '/panel/emails', scope.environment, 'emails');
    },
  );

  // Sends real mail at once, so at most 10 a minute from one address. A refusal is shown, not
  // redirected: its reason comes from the mail server and does not go into a URL.
  action(
    '/panel/emails/test',
    (reply, session, environment, error) => emailsPage(reply, session, environment, { status: 400, error }),
    async (session, scope, form, reply) => {
      const kind = emailKind(form.kind);
      if (!kind) throw invalidInput('Choose which e-mail to send as a test.');
      const vendor = await services.catalog.requireVendor(session.user.vendorId);
      const sent = await services.emails.sendTest(vendor, kind, scope.environment, session.user.email);
      if (sent.status === 'REFUSED')
        return emailsPage(reply, session, scope.environment, {
          error: `The mail server refused the test e-mail: ${sent.reason}`,
        });
      return to(reply, '/panel/emails', scope.environment, sent.status === 'SENT' ? 'test-sent' : 'test-off');
    },
    { rateLimit: { max: 10, timeWindow: 60_000 } },
  );
}
