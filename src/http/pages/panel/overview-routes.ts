import { overviewContent } from './overview.ts';
import { scopeOf, vendorLocale, type PanelRouting } from './panel-routing.ts';

/** The panel's Overview section: the figures of the environment, by day or by month. */
export function registerOverviewPage({ services, view, page, noticeOf }: PanelRouting) {
  view('/panel', async (session, environment, request, reply) => {
    const unit = (request.query as { by?: string }).by === 'month' ? 'month' : 'day';
    const overview = await services.dashboard.overview(scopeOf(session, environment), unit);
    return page(
      reply,
      session,
      environment,
      'overview',
      'Overview',
      overviewContent(overview, environment, vendorLocale(request)),
      {
        notice: noticeOf(request),
      },
    );
  });
}
