import { Type } from 'typebox';
import { listedTransaction, transactionWithEntries } from '../../presenters.ts';
import {
  described,
  errorResponses,
  ListedTransaction,
  stringified,
  TransactionParams,
  TransactionWithEntries,
} from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** GET /v1/transactions/{email} and GET /v1/transaction/{id}: a customer's transactions, and one transaction with its ledger. */
export function readTransactionRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/transactions/:email',
    {
      ...stringified,
      config: { timeless: true },
      schema: {
        operationId: 'listTransactionsByEmail',
        summary: 'List the transactions of a customer',
        description: 'Matches the purchase e-mail or the assigned e-mail, case-insensitively. Newest first.',
        tags: ['transactions'],
        params: Type.Object({
          email: Type.String({
            description: 'The purchase or assigned e-mail, URL-encoded.',
            examples: ['buyer@example.com'],
          }),
        }),
        response: {
          200: described(Type.Array(ListedTransaction), "The customer's transactions, newest first (empty when none)."),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const list = await services.transactions.listByEmail(request.scope, request.params.email);
      return list.map(listedTransaction);
    },
  );

  app.get(
    '/transaction/:transactionId',
    {
      ...stringified,
      config: { timeless: true },
      schema: {
        operationId: 'readTransaction',
        summary: 'Read one transaction with its ledger entries',
        tags: ['transactions'],
        params: TransactionParams,
        response: {
          200: described(TransactionWithEntries, 'The transaction with its ledger entries.'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { transaction, entries } = await services.transactions.get(request.scope, request.params.transactionId);
      return transactionWithEntries(transaction, entries);
    },
  );
}
