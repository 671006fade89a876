import { Type } from 'typebox';
import { refundRecord } from '../../presenters.ts';
import { errorResponses, PendingBody, RefundRecord } from '../../schemas.ts';
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
        description:
          'Send an Idempotency-Key header: a retry with the same key is the same refund. 202 PENDING: the payment provider has not confirmed yet; the refund entry appears once it does (retry with the same key to learn the outcome; meanwhile a retry answers 409 PAYMENT_PENDING).',
        response: { 200: Type.Array(RefundRecord), 202: PendingBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const result = await services.refunds.refund(request.scope, request.params.transactionId, { key: request.idempotencyKey ?? undefined });
      if (result.status === 'PENDING') {
        return reply.code(202).send({
          status: 'PENDING' as const,
          message: 'The payment provider has not confirmed the refund yet; retry with the same Idempotency-Key to learn the outcome.',
        });
      }
      return [refundRecord(result.refund, services.urls.base(environment))];
    },
  );
}
