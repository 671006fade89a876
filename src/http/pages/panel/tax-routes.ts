import { html } from '../layout.ts';
import { reportQueryOf, sendTaxReturnCsv, taxReturnContent } from '../tax-return-pages.ts';
import { reportForm } from '../tax-returns.ts';
import { panelHref } from './panel-layout.ts';
import type { PanelRouting } from './panel-routing.ts';

/**
 * The panel's Tax returns (under Overview; docs/decisions.md §23): for a vendor selling for itself
 * (SELLER_OF_RECORD=vendor), its own sales of a period as the returns it files, with the CSV of `opentill
 * tax report --vendor`. Where the operator is the seller, the operator files them: the page says so.
 */
export function registerTaxPages({ services, view, page, notFound }: PanelRouting) {
  const sellsForItself = () => services.config.sellerOfRecord.mode === 'vendor';

  view('/panel/taxes', async (session, environment, request, reply) => {
    const title = 'Tax returns';
    const options = { switchPath: '/panel/taxes' };
    if (!sellsForItself())
      return page(
        reply,
        session,
        environment,
        'overview',
        title,
        html`<p>The operator of this server is the seller of your sales: it collects their tax and files the returns. What your sales earn you is on your <a href="${panelHref('/panel/payouts', environment)}">payout statements</a>.</p>`,
        options,
      );
    const query = reportQueryOf(request.query);
    const { content, error } = await taxReturnContent(services, {
      query,
      environment,
      vendorId: session.user.vendorId,
      form: reportForm(query, { action: '/panel/taxes', environment }),
      csvHref: panelHref('/panel/taxes/tax.csv', environment, { period: query.period, scheme: query.scheme }),
    });
    const intro = html`<p class="muted">You are the seller of your sales: these are the figures of the returns you file, from your ledger.</p>`;
    return page(reply, session, environment, 'overview', title, html`${intro}${content}`, {
      ...options,
      status: error ? 400 : 200,
      error,
    });
  });

  view('/panel/taxes/tax.csv', async (session, environment, request, reply) => {
    if (!sellsForItself()) return notFound(reply, session, environment, 'overview', 'tax return');
    // Whose sales is the session's, never the query's.
    const query = reportQueryOf(request.query);
    return sendTaxReturnCsv(services, reply, { query, environment, vendorId: session.user.vendorId });
  });
}
