import { Type } from 'typebox';
import { absentBodyIsNull, CancelBody, errorResponses, Ok, optionalBody } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** POST /v1/cancel-subscription/{id}. Cancelling something already cancelled answers 200 and changes nothing. */
export function cancelSubscriptionRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/cancel-subscription/:transactionId',
    {
      preValidation: absentBodyIsNull,
      schema: {
        summary: 'Cancel a subscription (at the end of the paid period) or deactivate a vaulted method',
        tags: ['transactions'],
        params: Type.Object({ transactionId: Type.String() }),
        body: optionalBody(CancelBody),
        response: { 200: Ok, ...errorResponses },
      },
    },
    async (request) => {
      const { transaction, changed } = await services.transactions.cancel(
        request.scope,
        request.params.transactionId,
        'VENDOR',
      );
      return { id: transaction.id, transactionStatus: transaction.status, changed };
    },
  );
}
