import { Type } from 'typebox';
import { CustomizeBody, CustomizeResult, errorResponses } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** POST /v1/customize-product/{id}: custom prices, expiry, prefilled user or a subscription migration, with a payment link. */
export function customizeProductRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/customize-product/:productId',
    {
      schema: {
        summary: 'Create a customized product and its payment link',
        tags: ['products'],
        params: Type.Object({ productId: Type.String() }),
        body: CustomizeBody,
        response: { 200: CustomizeResult, ...errorResponses },
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
