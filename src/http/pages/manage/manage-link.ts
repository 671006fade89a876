import type { FastifyReply } from 'fastify';
import type { Scope } from '../../../domain/model.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import { sendProblem } from '../layout.ts';

/** A link that opens: whose purchases, in the scope of this environment. */
export type Open = { status: 'open'; scope: Scope; email: string };
type Opened = Open | { status: 'expired' } | { status: 'invalid' };

/** The customer a page of the link is for: the link's token (the credential), and whose purchases it opens. */
export type Visit = { token: string; scope: Scope; email: string };

/** What the signed link says: open, expired, or not a link of this environment. */
export function checkLink({ services, environment }: EnvironmentContext, token: string): Opened {
  const checked = services.links.check(token, 'manage', services.clock.real());
  if (checked.status === 'expired') return { status: 'expired' };
  if (checked.status === 'invalid' || checked.claims.environment !== environment) return { status: 'invalid' };
  return { status: 'open', scope: { vendorId: checked.claims.vendorId, environment }, email: checked.claims.subject };
}

/** The link opened, or the page that says why it does not open. */
export function openLink(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
): Open | { reply: FastifyReply } {
  const opened = checkLink(context, token);
  if (opened.status === 'expired')
    return {
      reply: sendProblem(
        reply,
        410,
        'This link has expired',
        "Ask the seller for a new link: a link from the seller's site works for an hour, one in an e-mail for a week.",
      ),
    };
  if (opened.status === 'invalid') {
    return {
      reply: sendProblem(
        reply,
        404,
        'This link is not valid',
        'Check that you copied the whole link, or ask the seller for a new one.',
      ),
    };
  }
  return opened;
}
