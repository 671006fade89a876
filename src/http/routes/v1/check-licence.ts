import { Type } from 'typebox';
import { described, errorResponses, LicenceStatus } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** GET /v1/check-licence/{productId}/{licence}: ACTIVE, INACTIVE or NOT_FOUND (docs/decisions.md §6). */
export function checkLicenceRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/check-licence/:productId/:licence',
    {
      schema: {
        operationId: 'checkLicence',
        summary: 'Check a licence key of a product',
        description:
          'ACTIVE while paid up (also in trial, or cancelled but still paid); INACTIVE once refunded, cancelled or failed; NOT_FOUND for an unknown key.',
        tags: ['licences'],
        params: Type.Object({
          productId: Type.String({ description: 'The product id.', examples: ['TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'] }),
          licence: Type.String({
            maxLength: 200,
            description: 'The licence key your customer entered.',
            examples: ['K7Q2M-4T6V8-X0Z2B-4D6F8-H0J2L'],
          }),
        }),
        response: {
          200: described(LicenceStatus, 'The state of the key (NOT_FOUND is an answer, not an error).'),
          ...errorResponses,
        },
      },
    },
    async (request) => services.licences.check(request.scope, request.params.productId, request.params.licence),
  );
}
