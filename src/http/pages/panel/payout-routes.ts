import { statementCsv } from '../../../domain/books/index.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { renderStatementPdf } from '../../../documents/statement-pdf.ts';
import { scopeOf, sendDownload, vendorLocale, type PanelRouting } from './panel-routing.ts';
import { payoutsContent, statementContent } from './payouts.ts';

/**
 * The panel's Payouts page (under Overview): the vendor's balance per currency and its statements, one
 * statement's lines and its CSV. Another vendor's statement, or one of the other environment, is not found.
 */
export function registerPayoutPages({ services, view, page, notFound }: PanelRouting) {
  const own = async (session: PanelSession, environment: Environment, id: string) => {
    const statement = await services.payouts.find(id);
    const scope = scopeOf(session, environment);
    return statement?.vendorId === scope.vendorId && statement.environment === environment ? statement : undefined;
  };

  view('/panel/payouts', async (session, environment, request, reply) => {
    const { vendorId } = scopeOf(session, environment);
    const [balances, statements] = await Promise.all([
      services.payouts.balances(vendorId, environment),
      services.payouts.list(vendorId, environment),
    ]);
    const holdDays = services.config.payoutHoldDays;
    const locale = vendorLocale(request);
    return page(
      reply,
      session,
      environment,
      'overview',
      'Payouts',
      payoutsContent({ environment, balances, statements, holdDays, locale }),
      {
        switchPath: '/panel/payouts',
      },
    );
  });

  view<{ id: string }>('/panel/payouts/:id', async (session, environment, request, reply) => {
    const statement = await own(session, environment, request.params.id);
    if (!statement) return notFound(reply, session, environment, 'overview', 'such statement');
    const title = `Statement ${statement.number}, ${statement.currency}`;
    return page(
      reply,
      session,
      environment,
      'overview',
      title,
      statementContent(statement, environment, vendorLocale(request)),
      {
        switchPath: '/panel/payouts',
      },
    );
  });

  view<{ id: string }>('/panel/payouts/:id/csv', async (session, environment, request, reply) => {
    const statement = await own(session, environment, request.params.id);
    if (!statement) return notFound(reply, session, environment, 'overview', 'such statement');
    const { lines } = await services.payouts.lines(statement.id);
    const csv = statementCsv(statement, lines);
    return sendDownload(
      reply,
      `statement-${statement.number}-${statement.currency}.csv`,
      'text/csv; charset=utf-8',
      csv,
    );
  });

  view<{ id: string }>('/panel/payouts/:id/pdf', async (session, environment, request, reply) => {
    const statement = await own(session, environment, request.params.id);
    if (!statement) return notFound(reply, session, environment, 'overview', 'such statement');
    const { lines, vendorName } = await services.payouts.lines(statement.id);
    const platform = new URL(services.urls.base('production')).host;
    const pdf = await renderStatementPdf(statement, lines, { vendor: vendorName, platform });
    return sendDownload(reply, `statement-${statement.number}-${statement.currency}.pdf`, 'application/pdf', pdf);
  });
}
