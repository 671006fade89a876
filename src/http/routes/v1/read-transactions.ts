import { Type } from 'typebox';
import { listedTransaction, transactionWithEntries } from '../../presenters.ts';
import { errorResponses, ListedTransaction, stringified, TransactionWithEntries } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** GET /v1/transactions/{email} and GET /v1/transaction/{id}: a customer's transactions, and one transaction with its ledger. */
export function readTransactionRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/transactions/:email',
    {
      ...stringified,
      config: { timeless: true },
      schema: {
        summary: 'List the transactions of a customer',
        description: 'Matches the purchase e-mail or the assigned e-mail, case-insensitively. Newest first.',
        tags: ['transactions'],
        params: Type.Object({ email: Type.String() }),
        response: { 200: Type.Array(ListedTransaction), ...errorResponses },
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
        summary: 'Read one transaction with its ledger entries',
        tags: ['transactions'],
        params: Type.Object({ transactionId: Type.String() }),
        response: { 200: TransactionWithEntries, ...errorResponses },
      },
    },
    async (request) => {
      const { transaction, entries } = await services.transactions.get(request.scope, request.params.transactionId);
      return transactionWithEntries(transaction, entries);
    },
  );
}
