import { AppError } from '../../../domain/errors.ts';
import type { Services } from '../../../services.ts';
import { taxReportCsv, type TaxScheme } from '../../../domain/books/index.ts';
import type { Environment } from '../../../domain/model.ts';
import { html } from '../layout.ts';
import { sendDownload } from '../panel/panel-routing.ts';
import { operatorHref } from './operator-layout.ts';
import type { OperatorRouting } from './operator-routing.ts';
import { reportContent, reportForm, type ReportQuery } from './reports.ts';

const queryOf = (raw: unknown): ReportQuery => {
  const q = raw as Partial<ReportQuery>;
  return { period: q.period?.trim() ?? '', scheme: q.scheme || 'all', vendor: q.vendor ?? '' };
};

/** A period's returns, as `opentill tax report` makes them. */
const report = (services: Services, query: ReportQuery, environment: Environment) =>
  services.taxReturns.report({
    period: query.period,
    scheme: query.scheme as TaxScheme | 'all',
    environment,
    vendorId: query.vendor || undefined,
    rates: services.rateHistory(),
  });

/**
 * The console's Tax returns (docs/decisions.md §23, §26): a period's returns as a table and as the CSV
 * of `opentill tax report`, for every vendor's sales or one vendor's. A bad period or return is said on
 * the page (400), like a refused form.
 */
export function registerReportPages({ services, view, page }: OperatorRouting) {
  view('/operator/reports', async (session, environment, request, reply) => {
    const query = queryOf(request.query);
    const vendors = await services.catalog.listVendors();
    const form = reportForm(query, { environment, vendors });
    const context = { session, environment, request };
    if (!query.period) return page(reply, context, 'reports', 'Tax returns', form);
    try {
      const { period, rows } = await report(services, query, environment);
      const csv = operatorHref('/operator/reports/tax.csv', environment, { ...query });
      return page(reply, context, 'reports', 'Tax returns', html`${form}${reportContent({ period, rows, csv })}`);
    } catch (err) {
      // A period that is none, or one whose last day has no ECB rates: said beside the form that asked.
      if (!(err instanceof AppError && err.code === 'INVALID_INPUT')) throw err;
      return page(reply, context, 'reports', 'Tax returns', form, { status: 400, error: err.message });
    }
  });

  view('/operator/reports/tax.csv', async (_session, environment, request, reply) => {
    const query = queryOf(request.query);
    const { period, rows } = await report(services, query, environment);
    const who = query.vendor ? `-${query.vendor}` : '';
    return sendDownload(
      reply,
      `tax-${period.label}-${query.scheme}${who}.csv`,
      'text/csv; charset=utf-8',
      taxReportCsv(period, rows),
    );
  });
}
