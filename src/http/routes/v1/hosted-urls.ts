import { Type } from 'typebox';
import { requireEmail } from '../../../domain/validation.ts';
import { described, errorResponses, UrlResult } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** GET /v1/generate-url-to-manage-transactions/{email} and /v1/generate-url-to-admin: temporary URLs of the customer's management page and of the admin tool. */
export function hostedUrlRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/generate-url-to-manage-transactions/:customerEmail',
    {
      schema: {
        operationId: 'generateManageTransactionsUrl',
        summary: 'Temporary URL of the page where a customer manages all their transactions',
        description: 'Valid for one hour.',
        tags: ['hosted pages'],
        params: Type.Object({
          customerEmail: Type.String({
            description: "The customer's purchase e-mail.",
            examples: ['buyer@example.com'],
          }),
        }),
        response: { 200: described(UrlResult, 'The temporary address.'), ...errorResponses },
      },
    },
    async (request) => {
      const email = requireEmail(request.params.customerEmail, 'customerEmail').toLowerCase();
      return { url: services.hostedUrl('manage', request.scope, email) };
    },
  );

  app.get(
    '/generate-url-to-admin',
    {
      schema: {
        operationId: 'generateAdminUrl',
        summary: 'Temporary URL of the admin tool, to embed in an iframe',
        description: 'Must be opened within 15 minutes.',
        tags: ['hosted pages'],
        response: { 200: described(UrlResult, 'The temporary address.'), ...errorResponses },
      },
    },
    async (request) => ({ url: services.hostedUrl('admin', request.scope, request.scope.vendorId) }),
  );
}
