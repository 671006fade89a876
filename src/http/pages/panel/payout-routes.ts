import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { sendStatement } from '../statement-downloads.ts';
import { panelHref } from './panel-layout.ts';
import { scopeOf, vendorLocale, type PanelRouting } from './panel-routing.ts';
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
      statementContent(
        statement,
        {
          pdf: panelHref(`/panel/payouts/${statement.id}/pdf`, environment),
          csv: panelHref(`/panel/payouts/${statement.id}/csv`, environment),
        },
        vendorLocale(request),
      ),
      {
        switchPath: '/panel/payouts',
      },
    );
  });

  for (const kind of ['csv', 'pdf'] as const)
    view<{ id: string }>(`/panel/payouts/:id/${kind}`, async (session, environment, request, reply) => {
      const statement = await own(session, environment, request.params.id);
      if (!statement) return notFound(reply, session, environment, 'overview', 'such statement');
      return sendStatement(services, reply, statement, kind);
    });
}
