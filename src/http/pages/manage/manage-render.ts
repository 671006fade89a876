import type { FastifyReply } from 'fastify';
import {
  canUpdateCard,
  type Authentication,
  type CardCompletion,
  type PortalItem,
} from '../../../domain/portal/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Translator } from '../../../i18n/index.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import { sendPage } from '../layout.ts';
import { pageScript } from '../page-scripts.ts';
import type { Visit } from './manage-link.ts';
import { buyerTranslator, speechOf } from '../buyer-language.ts';
import { sendManageProblem } from './manage-speech.ts';
import { managePage, MANAGE_STYLE } from './manage-views.ts';

/** A notice or an error: a "manage." key with its values, or words already in the customer's language. */
export type Message = { notice?: string | undefined; error?: string | undefined };

/**
 * The language of the customer's pages (docs/decisions.md §34): `?locale=`, else the language of
 * their latest purchase, else the browser's.
 */
export function visitTranslator(reply: FastifyReply, items: readonly PortalItem[]): Translator {
  return buyerTranslator(reply.request, items.find((i) => i.transaction.locale)?.transaction.locale);
}

/** The `?locale=` the customer chose, kept on the page's own links and forms. */
export function localeParam(reply: FastifyReply): string | undefined {
  const chosen = (reply.request.query as Record<string, string | undefined>).locale;
  return chosen ? buyerTranslator(reply.request).locale : undefined;
}

/** The page of the customer's purchases, with a notice or an error (each given in the customer's words by `say`). */
export async function render(
  { services, environment }: EnvironmentContext,
  reply: FastifyReply,
  { token, scope, email }: Visit,
  status: number,
  say: (tr: Translator) => Message = () => ({}),
) {
  const vendor = await services.catalog.findVendor(scope.vendorId);
  const items = await services.portal.overview(scope, email);
  const tr = visitTranslator(reply, items);
  const entry = services.payments.cardEntry(environment);
  // The processor's script is loaded only where it has something to do: a card to change or a payment to confirm.
  const needsProcessor =
    entry.kind === 'browser' && items.some((i) => i.awaitingAuthentication !== null || canUpdateCard(i.transaction));
  return sendPage(reply, {
    status,
    title: tr.t('manage.title'),
    speech: speechOf(tr),
    style: MANAGE_STYLE,
    body: managePage({
      tr,
      vendorName: vendor?.name ?? '',
      email,
      environment,
      items,
      formToken: services.links.formToken(token),
      cardEntry: entry.kind,
      localeParam: localeParam(reply),
      ...say(tr),
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

/** Where a form that did its work sends the customer: the page with its notice, in the language they chose. */
export function done(reply: FastifyReply, notice: string) {
  const locale = localeParam(reply);
  return reply.redirect(`?${new URLSearchParams({ done: notice, ...(locale ? { locale } : {}) })}`, 303);
}

/** Where confirming a held renewal leaves the customer: a notice, a page that checks again, or what is missing. */
export function afterAuthentication(
  context: EnvironmentContext,
  reply: FastifyReply,
  visit: Visit,
  id: string,
  outcome: Authentication,
) {
  if (outcome === 'BOOKED' || outcome === 'ALREADY_BOOKED') return done(reply, 'authenticated');
  if (outcome === 'PENDING') return reply.redirect(`?${new URLSearchParams({ confirmed: id }).toString()}`, 303);
  return render(context, reply, visit, 409, (tr) => ({ error: tr.t('manage.notConfirmed') }));
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
  if (outcome.status === 'UPDATED') return done(reply, 'card');
  if (outcome.status === 'PENDING')
    return reply.redirect(`?${new URLSearchParams({ transactionId: id, cardSession }).toString()}`, 303);
  return render(context, reply, visit, 402, (tr) => ({
    error: tr.t('manage.cardDeclined', { reason: outcome.message }),
  }));
}

/** A domain refusal on the page: someone else's purchase is "not found", anything else is said on the page. */
export function refused(context: EnvironmentContext, reply: FastifyReply, visit: Visit, err: unknown) {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'NOT_FOUND')
    return sendManageProblem(reply, buyerTranslator(reply.request), 404, 'notFoundTitle', 'notYours');
  // A state that changed under the customer reads the same in every language; other refusals carry their reason.
  return render(context, reply, visit, 400, (tr) => ({
    error: err.code === 'INVALID_STATE' ? tr.t('manage.changedMeanwhile') : err.message,
  }));
}
