import { Type } from 'typebox';
import { refundRecord } from '../../presenters.ts';
import { errorResponses, RefundRecord } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** POST /v1/refund-transaction/{id}: refunds the latest payment not yet refunded. */
export function refundTransactionRoute(app: HttpApp, { services, environment }: EnvironmentContext) {
  app.post(
    '/refund-transaction/:transactionId',
    {
      schema: {
        summary: 'Refund the latest payment of a transaction',
        tags: ['transactions'],
        params: Type.Object({ transactionId: Type.String() }),
        response: { 200: Type.Array(RefundRecord), ...errorResponses },
      },
    },
    async (request) => {
      const { refund } = await services.refunds.refund(request.scope, request.params.transactionId);
      return [refundRecord(refund, services.urls.base(environment))];
    },
  );
}
