import type { FastifyReply } from 'fastify';
import { statementCsv, type PayoutStatement } from '../../domain/books/index.ts';
import type { Services } from '../../services.ts';
import { sendDownload } from './panel/panel-routing.ts';

/** A payout statement as CSV (every entry it covers) or PDF, for the vendor's panel and the operator's console alike. */
export async function sendStatement(
  services: Services,
  reply: FastifyReply,
  statement: PayoutStatement,
  kind: 'csv' | 'pdf',
) {
  const { lines, vendorName } = await services.payouts.lines(statement.id);
  const name = `statement-${statement.number}-${statement.currency}.${kind}`;
  if (kind === 'csv') return sendDownload(reply, name, 'text/csv; charset=utf-8', statementCsv(statement, lines));
  const platform = new URL(services.urls.base('production')).host;
  // pdfkit and its fonts load with the first document asked for, not at start (as invoice-routes.ts).
  const { renderStatementPdf } = await import('../../documents/statement-pdf.ts');
  return sendDownload(
    reply,
    name,
    'application/pdf',
    await renderStatementPdf(statement, lines, { vendor: vendorName, platform }),
  );
}
