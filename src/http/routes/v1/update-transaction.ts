import { invalidInput } from '../../../domain/errors.ts';
import { updatedTransaction } from '../../presenters.ts';
import {
  described,
  errorResponses,
  stringified,
  TransactionParams,
  UpdatedTransaction,
  UpdateTransactionBody,
} from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** POST /v1/transaction/{id} assigns an e-mail or updates the payload: the body's field (assignEmail or payload) selects the operation. */
export function updateTransactionRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/transaction/:transactionId',
    {
      ...stringified,
      // Neither an assigned e-mail nor a payload carries a time: the sandbox clock is not loaded.
      config: { timeless: true },
      schema: {
        operationId: 'updateTransaction',
        summary: 'Assign a sign-up e-mail, or replace the payload, of a transaction',
        description:
          'Send exactly one of `assignEmail` (an e-mail) or `payload` (a string or null, fewer than 5000 characters).',
        tags: ['transactions'],
        params: TransactionParams,
        body: UpdateTransactionBody,
        response: { 200: described(UpdatedTransaction, 'The transaction as changed.'), ...errorResponses },
      },
    },
    async (request) => {
      const { transactionId } = request.params;
      const body = request.body;
      const hasEmail = body.assignEmail !== undefined;
      const hasPayload = body.payload !== undefined;
      if (hasEmail === hasPayload) {
        throw invalidInput('Send exactly one of "assignEmail" or "payload" in the body.');
      }
      const transaction = hasEmail
        ? await services.transactions.assignEmail(request.scope, transactionId, body.assignEmail!)
        : await services.transactions.updatePayload(request.scope, transactionId, body.payload);
      return updatedTransaction(transaction);
    },
  );
}
