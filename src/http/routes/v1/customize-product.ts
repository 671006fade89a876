import { Type } from 'typebox';
import { CustomizeBody, CustomizeResult, described, errorResponses } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** POST /v1/customize-product/{id}: custom prices, expiry, prefilled user or a subscription migration, with a payment link. */
export function customizeProductRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/customize-product/:productId',
    {
      schema: {
        operationId: 'customizeProduct',
        summary: 'Create a customized product and its payment link',
        description:
          'Custom prices, expiry, a prefilled user, or an upgrade/downgrade of an active subscription. An archived product is refused (400 INVALID_STATE).',
        tags: ['products'],
        params: Type.Object({
          productId: Type.String({
            description: 'The product to customize.',
            examples: ['TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
          }),
        }),
        body: CustomizeBody,
        response: {
          200: described(CustomizeResult, 'The customized product and its payment link.'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { customized, link } = await services.catalog.customizeProduct(
        request.scope,
        request.params.productId,
        request.body,
      );
      return { link, customizedProductId: customized.id, customProductId: customized.id };
    },
  );
}
