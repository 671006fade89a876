import type { FastifyReply } from 'fastify';
import type { Scope } from '../../../domain/model.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import { html, sendPage } from '../layout.ts';
import { buyerTranslator, speechOf } from '../buyer-language.ts';
import { sendManageProblem } from './manage-speech.ts';

/** A link that opens: whose purchases, in the scope of this environment. */
export type Open = { status: 'open'; scope: Scope; email: string };
type Opened = Open | { status: 'expired'; vendorId: string } | { status: 'invalid' };

/** The customer a page of the link is for: the link's token (the credential), and whose purchases it opens. */
export type Visit = { token: string; scope: Scope; email: string };

/** The vendor of a link whose signature checked out but whose time is over (so the page can offer a new one). */
function vendorOfExpired(token: string): string {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as {
      vendorId?: unknown;
    };
    return typeof claims.vendorId === 'string' ? claims.vendorId : '';
  } catch {
    return '';
  }
}

/** What the signed link says: open, expired, or not a link of this environment. */
export function checkLink({ services, environment }: EnvironmentContext, token: string): Opened {
  const checked = services.links.check(token, 'manage', services.clock.real());
  if (checked.status === 'expired') return { status: 'expired', vendorId: vendorOfExpired(token) };
  if (checked.status === 'invalid' || checked.claims.environment !== environment) return { status: 'invalid' };
  return { status: 'open', scope: { vendorId: checked.claims.vendorId, environment }, email: checked.claims.subject };
}

/** The link opened, or the page that says why it does not open (an expired one offers a new link by e-mail). */
export function openLink(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
): Open | { reply: FastifyReply } {
  const opened = checkLink(context, token);
  const tr = buyerTranslator(reply.request);
  if (opened.status === 'expired') {
    const signIn = `sign-in/${encodeURIComponent(opened.vendorId)}?locale=${tr.locale}`;
    return {
      reply: sendPage(reply, {
        status: 410,
        title: tr.t('manage.linkExpiredTitle'),
        speech: speechOf(tr),
        body: html`<h1>${tr.t('manage.linkExpiredTitle')}</h1><p>${tr.t('manage.linkExpiredText')}</p>
        <p><a href="${signIn}" data-testid="new-link">${tr.t('manage.newLink')}</a></p>`,
      }),
    };
  }
  if (opened.status === 'invalid')
    return { reply: sendManageProblem(reply, tr, 404, 'linkInvalidTitle', 'linkInvalidText') };
  return opened;
}
