import { formatMinor, minorToNumber } from '../../../domain/money/index.ts';
import { ChargeVaultedBody, described, errorResponses, TransactionParams, VaultedChargeResult } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** POST /v1/charge-vaulted/{id}: a decline is a 200 with status FAILED; `deactivation` says the method is now unusable. */
export function chargeVaultedRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/charge-vaulted/:transactionId',
    {
      schema: {
        operationId: 'chargeVaulted',
        summary: 'Charge a vaulted payment method',
        description: 'Send an Idempotency-Key header: a retry with the same key never charges twice.',
        tags: ['transactions'],
        params: TransactionParams,
        body: ChargeVaultedBody,
        response: {
          200: described(VaultedChargeResult, 'Charged (SUCCESS), or declined with nothing charged (FAILED).'),
          202: described(
            VaultedChargeResult,
            'PENDING: the payment provider has not confirmed yet; retry with the same Idempotency-Key to learn the outcome.',
          ),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const result = await services.vaulted.charge(
        request.scope,
        request.params.transactionId,
        request.body,
        request.idempotencyKey ?? undefined,
      );
      const { quote } = result;
      // Not confirmed yet: 202, and the Idempotency-Key stays open for the retry that learns the outcome.
      if (result.status === 'PENDING') reply.code(202);
      return {
        currency: quote.currency,
        deactivation: result.deactivation,
        price: minorToNumber(quote.totalMinor, quote.currency),
        priceS: formatMinor(quote.totalMinor, quote.currency),
        taxValue: minorToNumber(quote.taxMinor, quote.currency),
        taxValueS: formatMinor(quote.taxMinor, quote.currency),
        netValue: minorToNumber(quote.netMinor, quote.currency),
        netValueS: formatMinor(quote.netMinor, quote.currency),
        status: result.status,
        message: result.message,
      };
    },
  );
}
