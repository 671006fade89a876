import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Environment, Scope } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import type { Services } from '../../../services.ts';
import { typedAmount, type FormBody } from '../form-body.ts';
import { panelHref } from './panel-layout.ts';
import { scopeOf, sendDownload, vendorLocale, type PageExtra, type PanelRouting } from './panel-routing.ts';
import { transactionDetail } from './transaction-detail.ts';
import { licenceSection } from './licence-section.ts';
import { registerLicenceActions } from './licence-routes.ts';
import { pauseSection, registerPauseActions } from './pause-panel.ts';
import { registerSeatActions, seatsSection } from './seats-panel.ts';
import {
  confirmContent,
  PAGE_SIZE,
  refundedNotice,
  transactionsContent,
  transactionsCsv,
  type ListQuery,
} from './transactions.ts';
import { STATUS_FILTERS } from './words.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const listFilter = (q: ListQuery) => ({
  query: q.q?.slice(0, 200),
  statuses: q.status ? STATUS_FILTERS[q.status]?.statuses : undefined,
  type: q.type || undefined,
  productId: q.product || undefined,
  from: q.from && DATE.test(q.from) ? `${q.from}T00:00:00.000Z` : undefined,
  to:
    q.to && DATE.test(q.to) && !Number.isNaN(Date.parse(q.to))
      ? new Date(Date.parse(`${q.to}T00:00:00.000Z`) + 86_400_000).toISOString()
      : undefined,
});

const queryOf = (request: FastifyRequest): ListQuery => {
  const raw = request.query as Record<string, unknown>;
  const pick = (k: string) => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  return {
    q: pick('q'),
    status: pick('status'),
    type: pick('type'),
    product: pick('product'),
    from: pick('from'),
    to: pick('to'),
    page: pick('page'),
  };
};

/** The ledger as the confirmation showed it: a form sent twice must not act twice (the domain checks it under the row lock). */
const seenOf = (form: FormBody) => ({ entries: /^\d{1,6}$/.test(form.version ?? '') ? Number(form.version) : -1 });

/**
 * The panel's Transactions section: the list (and as CSV), a transaction with its ledger, and the
 * two things a vendor does to one, each behind a confirmation page: refund (all that is left of the
 * latest payment, or a part, with a reason kept with the refund) and cancel.
 */
export function registerTransactionPages(routing: PanelRouting) {
  registerTransactionList(routing);
  registerTransactionDetail(routing);
  for (const act of ['refund', 'cancel'] as const) registerTransactionAction(routing, act);
  registerLicenceActions(routing);
  registerPauseActions(routing);
  registerSeatActions(routing);
}

/** A sandbox's customer e-mails go to the vendor unless the operator set SMTP_SANDBOX_TO=customers. */
const sandboxToVendor = (services: Services, environment: Environment) =>
  environment === 'sandbox' && services.config.smtp?.sandboxTo !== 'customers';

/** The transaction and its ledger, or undefined when this vendor has no such transaction here. */
const find = (services: Services, scope: Scope, id: string) =>
  services.transactions.get(scope, id).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  });

function registerTransactionList({ services, view, page, noticeOf }: PanelRouting) {
  view('/panel/transactions', async (session, environment, request, reply) => {
    const scope = scopeOf(session, environment);
    const query = queryOf(request);
    const pageNumber = Math.min(10_000, Math.max(1, Number.parseInt(query.page ?? '1', 10) || 1));
    const { transactions, total } = await services.dashboard.transactions(scope, listFilter(query), {
      limit: PAGE_SIZE,
      offset: (pageNumber - 1) * PAGE_SIZE,
    });
    const content = transactionsContent({
      environment,
      query,
      products: await services.catalog.listProducts(scope),
      transactions,
      total,
      page: pageNumber,
      locale: vendorLocale(request),
    });
    return page(reply, session, environment, 'transactions', 'Transactions', content, { notice: noticeOf(request) });
  });

  view('/panel/transactions.csv', async (session, environment, request, reply) => {
    const { transactions } = await services.dashboard.transactions(
      scopeOf(session, environment),
      listFilter(queryOf(request)),
      { limit: 100_000, offset: 0 },
    );
    return sendDownload(
      reply,
      `transactions-${environment}.csv`,
      'text/csv; charset=utf-8',
      transactionsCsv(transactions),
    );
  });
}

function registerTransactionDetail({ services, view, action, page, notFound, noticeOf }: PanelRouting) {
  const detailPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    id: string,
    extra: PageExtra = {},
  ) => {
    const scope = scopeOf(session, environment);
    const details = await services.dashboard.transaction(scope, id);
    if (!details) return notFound(reply, session, environment, 'transactions', 'such transaction');
    const locale = vendorLocale(reply.request);
    const content = transactionDetail({
      environment,
      details,
      csrf: session.csrfToken,
      locale,
      documentsBase: services.urls.base(environment),
      // With e-mails off the vendor passes the link on: made as the API's generate-url-to-manage-transactions makes it.
      manageLink: services.emails.enabled
        ? { send: true, toVendor: sandboxToVendor(services, environment) }
        : { send: false, url: services.hostedUrl('manage', scope, details.transaction.email.toLowerCase()) },
      licenceSection: licenceSection(environment, session.csrfToken, id, await services.licences.ofPurchase(scope, id)),
      pauseSection: pauseSection(environment, session.csrfToken, details.transaction, services.clock.now(scope)),
      seatsSection: seatsSection(
        environment,
        session.csrfToken,
        details.transaction,
        await services.catalog.readProduct(scope, details.transaction.productId).catch(() => undefined),
      ),
    });
    // After a refund the notice says what is left, from the ledger as it is now.
    const notice =
      (reply.request.query as { done?: string }).done === 'refunded'
        ? refundedNotice(details.transaction, details.entries, locale)
        : extra.notice;
    return page(reply, session, environment, 'transactions', 'Transaction', content, {
      ...extra,
      notice,
      switchPath: '/panel/transactions',
    });
  };

  view<{ id: string }>('/panel/transactions/:id', (session, environment, request, reply) =>
    detailPage(reply, session, environment, request.params.id, { notice: noticeOf(request) }),
  );

  // Mails the buyer at once, so a few a minute from one address; another vendor's transaction is not found.
  action(
    '/panel/transactions/:id/manage-link',
    (reply, session, environment, error, _form, failure, request) => {
      if (failure.code === 'NOT_FOUND')
        return notFound(reply, session, environment, 'transactions', 'such transaction');
      return detailPage(reply, session, environment, (request.params as { id: string }).id, { status: 400, error });
    },
    async (session, scope, _form, reply, request) => {
      const id = (request.params as { id: string }).id;
      const sent = await services.portal.sendManagementLink(scope, id);
      // The mail server's reason is shown, not put into a URL.
      if (sent.status === 'REFUSED')
        return detailPage(reply, session, scope.environment, id, {
          error: `The mail server refused the e-mail: ${sent.reason}`,
        });
      let done = sent.status === 'SENT' ? 'manage-link-sent' : 'manage-link-off';
      if (done === 'manage-link-sent' && sandboxToVendor(services, scope.environment)) done = 'manage-link-sent-to-you';
      return reply.redirect(panelHref(`/panel/transactions/${id}`, scope.environment, { done }), 303);
    },
    { rateLimit: { max: 5, timeWindow: 60_000 } },
  );
}

/** Refund or cancel: the confirmation page, and its form. */
function registerTransactionAction({ services, view, action, page, notFound }: PanelRouting, act: 'refund' | 'cancel') {
  /** The confirmation step: the detail page links here; only this page's explicit button acts. */
  const confirmPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    id: string,
    extra: PageExtra = {},
  ) => {
    const found = await find(services, scopeOf(session, environment), id);
    if (!found) return notFound(reply, session, environment, 'transactions', 'such transaction');
    const { transaction, entries } = found;
    const content = confirmContent({
      environment,
      transaction,
      entries,
      csrf: session.csrfToken,
      action: act,
      locale: vendorLocale(reply.request),
      form: extra.form,
    });
    const title = act === 'refund' ? 'Refund?' : 'Cancel?';
    return page(reply, session, environment, 'transactions', title, content, {
      ...extra,
      switchPath: '/panel/transactions',
    });
  };

  view<{ id: string }>(`/panel/transactions/:id/${act}`, (session, environment, request, reply) =>
    confirmPage(reply, session, environment, request.params.id),
  );

  action(
    `/panel/transactions/:id/${act}`,
    (reply, session, environment, error, form, failure, request) => {
      const id = (request.params as { id: string }).id;
      if (failure.code === 'NOT_FOUND')
        return notFound(reply, session, environment, 'transactions', 'such transaction');
      // What the vendor typed stays in the form, with what was wrong with it.
      return confirmPage(reply, session, environment, id, { status: 400, error, form });
    },
    async (_session, scope, form, reply, request) => {
      const id = (request.params as { id: string }).id;
      let done = 'cancelled';
      if (act === 'refund') {
        const refund = { amount: typedAmount(form.amount), reason: form.reason || undefined };
        const outcome = await services.refunds.refund(scope, id, { seen: seenOf(form), request: refund });
        done = outcome.status === 'PENDING' ? 'refund-pending' : 'refunded';
      } else await services.transactions.cancel(scope, id, 'VENDOR', seenOf(form));
      return reply.redirect(panelHref(`/panel/transactions/${id}`, scope.environment, { done }), 303);
    },
  );
}
