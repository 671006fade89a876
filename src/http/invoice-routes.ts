import { AppError } from '../domain/errors.ts';
import { supportedLocale } from '../i18n/index.ts';
import type { EnvironmentContext, HttpApp } from './http-app.ts';
import { sendProblem } from './pages/layout.ts';

/**
 * `{base_url}/invoice/{hashId}`: the PDF of a payment's invoice or a refund's credit note. The
 * hash id is unguessable (96+ random bits) and bound to its environment; anything else is a 404 page.
 */
export function registerInvoiceRoutes(app: HttpApp, { services, environment }: EnvironmentContext) {
  app.get<{ Params: { hashId: string } }>('/invoice/:hashId', { schema: { hide: true } }, async (request, reply) => {
    try {
      const document = await services.invoices.find(environment, request.params.hashId);
      // pdfkit and its fonts (12 MB of heap) load with the first document asked for, not at start.
      const { renderInvoicePdf } = await import('../documents/invoice-pdf.ts');
      const pdf = await renderInvoicePdf(document);
      const name = `${document.kind === 'INVOICE' ? 'invoice' : 'credit-note'}-${document.number}.pdf`;
      return (
        reply
          .type('application/pdf')
          .header('content-disposition', `inline; filename="${name}"`)
          // The document speaks the buyer's language (docs/decisions.md §35); English without a stored one.
          .header('content-language', supportedLocale(document.locale) ?? 'en')
          .header('cache-control', 'private, max-age=300')
          .header('x-content-type-options', 'nosniff')
          .send(pdf)
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
      return sendProblem(reply, 404, 'Invoice not found', 'Check that you copied the whole link.');
    }
  });
}
