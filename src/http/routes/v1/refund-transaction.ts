import { Type } from 'typebox';
import { refundRecord } from '../../presenters.ts';
import {
  absentBodyIsNull,
  errorResponses,
  optionalBody,
  PendingBody,
  RefundBody,
  RefundRecord,
  described,
  TransactionParams,
} from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/**
 * POST /v1/refund-transaction/{id}: without a body, refunds what is left of the latest payment (the
 * original API's call); opentill's own optional body refunds part of it, or of another payment.
 */
export function refundTransactionRoute(app: HttpApp, { services, environment }: EnvironmentContext) {
  app.post(
    '/refund-transaction/:transactionId',
    {
      preValidation: absentBodyIsNull,
      schema: {
        operationId: 'refundTransaction',
        summary: 'Refund all or part of a payment of a transaction',
        tags: ['transactions'],
        params: TransactionParams,
        body: optionalBody(RefundBody),
        description:
          'Without a body: refunds what is left of the latest payment, as the original API does. With opentill\'s own optional body `{"amount": 10}`: refunds that much (gross, in the payment\'s currency); `entryId` chooses another payment, `reason` is kept with the refund. A field the route does not know is refused (400). `refundable` in the answer says whether something is left of the payment. Send an Idempotency-Key header: a retry with the same key is the same refund. 202 PENDING: the payment provider has not confirmed yet; the refund entry appears once it does (retry with the same key to learn the outcome; meanwhile a retry answers 409 PAYMENT_PENDING).',
        response: {
          200: described(Type.Array(RefundRecord), 'Refunded: the refund record (one element).'),
          202: described(PendingBody, 'The payment provider has not confirmed the refund yet.'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const result = await services.refunds.refund(request.scope, request.params.transactionId, {
        key: request.idempotencyKey ?? undefined,
        request: request.body ?? {},
      });
      if (result.status === 'PENDING') {
        return reply.code(202).send({
          status: 'PENDING' as const,
          message:
            'The payment provider has not confirmed the refund yet; retry with the same Idempotency-Key to learn the outcome.',
        });
      }
      return [refundRecord(result.entry, services.urls.base(environment), result.remainingMinor > 0)];
    },
  );
}
