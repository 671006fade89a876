import { Type } from 'typebox';
import { errorResponses, LicenceStatus } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** GET /v1/check-licence/{productId}/{licence}: ACTIVE, INACTIVE or NOT_FOUND (docs/decisions.md §6). */
export function checkLicenceRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/check-licence/:productId/:licence',
    {
      schema: {
        summary: 'Check a licence key of a product',
        description:
          'ACTIVE while paid up (also in trial, or cancelled but still paid); INACTIVE once refunded, cancelled or failed; NOT_FOUND for an unknown key.',
        tags: ['licences'],
        params: Type.Object({ productId: Type.String(), licence: Type.String({ maxLength: 200 }) }),
        response: { 200: LicenceStatus, ...errorResponses },
      },
    },
    async (request) => services.licences.check(request.scope, request.params.productId, request.params.licence),
  );
}
