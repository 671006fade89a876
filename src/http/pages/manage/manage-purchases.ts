import type { FastifyReply } from 'fastify';
import { notFound } from '../../../domain/errors.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import { sendPage } from '../layout.ts';
import { billingPage, cancelPage, switchPage, type FormView } from './manage-forms.ts';
import { openLink, type Visit } from './manage-link.ts';
import {
  afterAuthentication,
  afterCardSession,
  localeParam,
  refused,
  render,
  visitTranslator,
} from './manage-render.ts';
import { speechOf } from '../buyer-language.ts';
import { MANAGE_STYLE } from './manage-views.ts';

/** The notice of each form that did its work, by `?done=`. */
const NOTICES: Record<string, string> = {
  cancelled: 'manage.noticeCancelled',
  card: 'manage.noticeCard',
  authenticated: 'manage.noticeAuthenticated',
  billing: 'manage.noticeBilling',
  switched: 'manage.noticeSwitched',
  'instance-freed': 'manage.noticeInstanceFreed',
  paused: 'manage.noticePaused',
  resumed: 'manage.noticeResumed',
  seats: 'manage.noticeSeats',
  'reverse-charge-starts': 'manage.billingReverseChargeStarts',
  'reverse-charge-stops': 'manage.billingReverseChargeStops',
};

/** What the page's query says: the notice of a form that did its work, what the processor sent the customer back from, or a form page. */
export type PurchasesQuery = {
  done?: string;
  confirmed?: string;
  transactionId?: string;
  cardSession?: string;
  page?: string;
  id?: string;
};

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
      if (outcome === 'PENDING')
        return render(context, reply, visit, 202, (tr) => ({ notice: tr.t('manage.stillConfirming') }));
      return afterAuthentication(context, reply, visit, query.confirmed, outcome);
    }
    if (typeof query.cardSession === 'string' && query.cardSession && typeof query.transactionId === 'string') {
      const outcome = await services.portal.completeCardSession(scope, email, query.transactionId, query.cardSession);
      if (outcome.status === 'PENDING')
        return render(context, reply, visit, 202, (tr) => ({ notice: tr.t('manage.cardPending') }));
      return afterCardSession(context, reply, visit, query.transactionId, query.cardSession, outcome);
    }
    if (query.page && query.id) return await showForm(context, reply, visit, query.page, query.id);
  } catch (err) {
    return refused(context, reply, visit, err);
  }
  // Only the notices listed: `?done=constructor` is not one, though every object has it.
  const notice = Object.hasOwn(NOTICES, query.done ?? '') ? NOTICES[query.done!] : undefined;
  return render(context, reply, visit, 200, (tr) => ({ notice: notice && tr.t(notice) }));
}

/** One of the pages behind the action links, for one of the customer's purchases; an error shown on it when a form came back refused. */
export async function showForm(
  context: EnvironmentContext,
  reply: FastifyReply,
  visit: Visit,
  page: string,
  id: string,
  refusal?: { status: number; errorKey: string; typed?: Record<string, string | undefined>; field?: string },
) {
  const { services } = context;
  const { scope, email } = visit;
  const items = await services.portal.overview(scope, email);
  const entry = items.find((i) => i.transaction.id === id);
  const tr = visitTranslator(reply, items);
  if (!entry) return refused(context, reply, visit, notFound(`Transaction ${id}`));
  const vendor = await services.catalog.findVendor(scope.vendorId);
  const locale = localeParam(reply);
  const view: FormView = {
    tr,
    vendorName: vendor?.name ?? '',
    formToken: services.links.formToken(visit.token),
    back: `${encodeURIComponent(visit.token)}${locale ? `?locale=${locale}` : ''}`,
    error: refusal && tr.t(refusal.errorKey),
  };
  const t = entry.transaction;
  let body;
  if (page === 'cancel') body = cancelPage(view, t, await services.portal.cancelNowAllowed(scope.vendorId));
  else if (page === 'billing') body = billingPage(view, t, refusal?.typed, refusal?.field);
  else if (page === 'switch')
    body = switchPage(view, t, (await services.portal.switchOptions(scope, email, id)).options);
  else return render(context, reply, visit, 404, (say) => ({ error: say.t('manage.unknownAction') }));
  return sendPage(reply, {
    status: refusal?.status ?? 200,
    title: tr.t(`manage.${page}Title`, { product: t.productName }),
    speech: speechOf(tr),
    style: MANAGE_STYLE,
    body,
  });
}
