import type { FastifyReply } from 'fastify';
import { taxReportCsv, type TaxScheme } from '../../domain/books/index.ts';
import { AppError } from '../../domain/errors.ts';
import type { Environment } from '../../domain/model.ts';
import type { Services } from '../../services.ts';
import { html, type Html } from './layout.ts';
import { sendDownload } from './panel/panel-routing.ts';
import { reportContent, type ReportQuery } from './tax-returns.ts';

/** What a tax return page was asked for (`?period=&scheme=&vendor=`). */
export const reportQueryOf = (raw: unknown): ReportQuery => {
  const q = raw as Partial<ReportQuery>;
  return { period: q.period?.trim() ?? '', scheme: q.scheme || 'all', vendor: q.vendor ?? '' };
};

/** A period's returns as `opentill tax report` makes them: one vendor's sales, or every vendor's. */
const reportOf = (services: Services, query: ReportQuery, environment: Environment, vendorId: string | undefined) =>
  services.taxReturns.report({
    period: query.period,
    scheme: query.scheme as TaxScheme | 'all',
    environment,
    vendorId,
    rates: services.rateHistory(),
  });

/**
 * The content of a tax return page (the operator's console and a vendor's panel): the form, and once a
 * period is asked for, its returns with the CSV link. A period that is none, or one without the ECB day
 * it needs, is the form again with the reason (`error`, to answer 400).
 */
export async function taxReturnContent(
  services: Services,
  view: { query: ReportQuery; environment: Environment; vendorId: string | undefined; form: Html; csvHref: string },
): Promise<{ content: Html; error?: string }> {
  if (!view.query.period) return { content: view.form };
  try {
    const { period, rows } = await reportOf(services, view.query, view.environment, view.vendorId);
    return { content: html`${view.form}${reportContent({ period, rows, csv: view.csvHref })}` };
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'INVALID_INPUT')) throw err;
    return { content: view.form, error: err.message };
  }
}

/** The returns as the CSV of `opentill tax report`, named after the period, the return and whose sales. */
export async function sendTaxReturnCsv(
  services: Services,
  reply: FastifyReply,
  view: { query: ReportQuery; environment: Environment; vendorId: string | undefined },
) {
  const { period, rows } = await reportOf(services, view.query, view.environment, view.vendorId);
  const who = view.vendorId ? `-${view.vendorId}` : '';
  return sendDownload(
    reply,
    `tax-${period.label}-${view.query.scheme}${who}.csv`,
    'text/csv; charset=utf-8',
    taxReportCsv(period, rows),
  );
}
