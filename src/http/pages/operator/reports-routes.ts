import { sendTaxReturnCsv, reportQueryOf, taxReturnContent } from '../tax-return-pages.ts';
import { reportForm } from '../tax-returns.ts';
import { operatorHref } from './operator-layout.ts';
import type { OperatorRouting } from './operator-routing.ts';

/**
 * The console's Tax returns (docs/decisions.md §23, §26): a period's returns as a table and as the CSV
 * of `opentill tax report`, for every vendor's sales or one vendor's. A bad period or return is said on
 * the page (400), like a refused form.
 */
export function registerReportPages({ services, view, page }: OperatorRouting) {
  view('/operator/reports', async (session, environment, request, reply) => {
    const query = reportQueryOf(request.query);
    const vendors = await services.catalog.listVendors();
    const { content, error } = await taxReturnContent(services, {
      query,
      environment,
      vendorId: query.vendor || undefined,
      form: reportForm(query, { action: '/operator/reports', environment, vendors }),
      csvHref: operatorHref('/operator/reports/tax.csv', environment, { ...query }),
    });
    const status = error ? 400 : 200;
    return page(reply, { session, environment, request }, 'reports', 'Tax returns', content, { status, error });
  });

  view('/operator/reports/tax.csv', async (_session, environment, request, reply) => {
    const query = reportQueryOf(request.query);
    return sendTaxReturnCsv(services, reply, { query, environment, vendorId: query.vendor || undefined });
  });
}
