import {
  absentBodyIsNull,
  CancelBody,
  described,
  errorResponses,
  Ok,
  optionalBody,
  TransactionParams,
} from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** POST /v1/cancel-subscription/{id}. Cancelling something already cancelled answers 200 and changes nothing. */
export function cancelSubscriptionRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/cancel-subscription/:transactionId',
    {
      preValidation: absentBodyIsNull,
      schema: {
        operationId: 'cancelSubscription',
        summary: 'Cancel a subscription (at the end of the paid period) or deactivate a vaulted method',
        tags: ['transactions'],
        params: TransactionParams,
        body: optionalBody(CancelBody),
        response: {
          200: described(Ok, 'Cancelled, or already cancelled (changed: false): no further charges.'),
          ...errorResponses,
        },
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
