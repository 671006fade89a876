import type { FastifyReply } from 'fastify';
import type { EnvironmentContext } from '../../http-app.ts';
import { openLink } from './manage-link.ts';
import { afterAuthentication, afterCardSession, refused, render } from './manage-render.ts';

const NOTICES: Record<string, string> = {
  cancelled: 'Cancelled. Nothing more will be charged.',
  card: 'The new card is saved.',
  authenticated: 'Thank you: the payment is confirmed.',
};

const STILL_CONFIRMING =
  'Thank you: your bank is still confirming the payment. Reload this page in a moment to see it paid; you do not need to confirm it again.';
const CARD_PENDING = 'Your bank is still checking the new card. Reload this page in a moment to see it saved.';

/** What the page's query says: the notice of a form that did its work, or what the processor sent the customer back from. */
export type PurchasesQuery = { done?: string; confirmed?: string; transactionId?: string; cardSession?: string };

/** `GET /manage/{token}`: the customer's purchases, after asking the processor about a payment or card it sent back. */
export async function showPurchases(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
  query: PurchasesQuery,
) {
  const { services } = context;
  const opened = openLink(context, reply, token);
  if ('reply' in opened) return opened.reply;
  const { scope, email } = opened;
  const visit = { token, scope, email };
  try {
    // Back from the processor (or reloaded while the bank was still at it): ask the processor where it stands.
    if (typeof query.confirmed === 'string' && query.confirmed) {
      const outcome = await services.portal.authenticated(scope, email, query.confirmed);
      if (outcome === 'PENDING') return render(context, reply, visit, 202, { notice: STILL_CONFIRMING });
      return afterAuthentication(context, reply, visit, query.confirmed, outcome);
    }
    if (typeof query.cardSession === 'string' && query.cardSession && typeof query.transactionId === 'string') {
      const outcome = await services.portal.completeCardSession(scope, email, query.transactionId, query.cardSession);
      if (outcome.status === 'PENDING') return render(context, reply, visit, 202, { notice: CARD_PENDING });
      return afterCardSession(context, reply, visit, query.transactionId, query.cardSession, outcome);
    }
  } catch (err) {
    return refused(context, reply, visit, err);
  }
  return render(context, reply, visit, 200, { notice: NOTICES[query.done ?? ''] });
}
