import type { FastifyReply } from 'fastify';
import { localeFromAcceptLanguage } from '../../../domain/money/index.ts';
import { canUpdateCard, type Authentication, type CardCompletion } from '../../../domain/portal/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import { sendPage, sendProblem } from '../layout.ts';
import { pageScript } from '../page-scripts.ts';
import type { Visit } from './manage-link.ts';
import { managePage } from './manage-views.ts';

const NOT_CONFIRMED =
  'The payment is not confirmed yet: press "Confirm the payment" and complete the check your bank shows.';

type Message = { notice?: string | undefined; error?: string | undefined };

/** The page of the customer's purchases, with a notice or an error. */
export async function render(
  { services, environment }: EnvironmentContext,
  reply: FastifyReply,
  { token, scope, email }: Visit,
  status: number,
  message: Message = {},
) {
  const vendor = await services.catalog.findVendor(scope.vendorId);
  const items = await services.portal.overview(scope, email);
  const entry = services.payments.cardEntry(environment);
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
    // The processor's script (src/http/pages/browser/manage-processor.ts), set up by its data block.
    ...(entry.kind === 'browser' && needsProcessor
      ? {
          script: pageScript('manage-processor'),
          data: {
            'opentill-manage': {
              publicKey: entry.publicKey,
              authenticationUrl: `${encodeURIComponent(token)}/authentication/session`,
              cardSessionUrl: `${encodeURIComponent(token)}/card/session`,
            },
          },
        }
      : {}),
    processorScript:
      entry.kind === 'browser' && needsProcessor ? { url: entry.scriptUrl, origins: entry.origins } : undefined,
  });
}

/** Where confirming a held renewal leaves the customer: a notice, a page that checks again, or what is missing. */
export function afterAuthentication(
  context: EnvironmentContext,
  reply: FastifyReply,
  visit: Visit,
  id: string,
  outcome: Authentication,
) {
  if (outcome === 'BOOKED' || outcome === 'ALREADY_BOOKED') return reply.redirect('?done=authenticated', 303);
  if (outcome === 'PENDING') return reply.redirect(`?${new URLSearchParams({ confirmed: id }).toString()}`, 303);
  return render(context, reply, visit, 409, { error: NOT_CONFIRMED });
}

/** Where a card change in the processor's element leaves the customer. */
export function afterCardSession(
  context: EnvironmentContext,
  reply: FastifyReply,
  visit: Visit,
  id: string,
  cardSession: string,
  outcome: CardCompletion,
) {
  if (outcome.status === 'UPDATED') return reply.redirect('?done=card', 303);
  if (outcome.status === 'PENDING')
    return reply.redirect(`?${new URLSearchParams({ transactionId: id, cardSession }).toString()}`, 303);
  return render(context, reply, visit, 402, { error: `The card was not accepted: ${outcome.message}` });
}

/** A domain refusal on the page: someone else's purchase is "not found", anything else is said on the page. */
export function refused(context: EnvironmentContext, reply: FastifyReply, visit: Visit, err: unknown) {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'NOT_FOUND') return sendProblem(reply, 404, 'Not found', 'That purchase is not one of yours.');
  return render(context, reply, visit, 400, { error: err.message });
}
