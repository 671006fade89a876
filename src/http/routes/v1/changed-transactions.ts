import { Type } from 'typebox';
import { invalidInput } from '../../../domain/errors.ts';
import { changedTransaction } from '../../presenters.ts';
import { ChangedTransaction, errorResponses, stringified } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

export const MORE_CHANGES_HEADER = 'x-more-changes';

/** GET /v1/changed-transactions and POST /v1/changed-transactions/{id}: the feed, and marking a transaction processed. */
export function changedTransactionRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/changed-transactions',
    {
      ...stringified,
      config: { timeless: true },
      schema: {
        summary: 'Transactions changed since they were last marked processed, oldest change first',
        description: `At most \`limit\` (default 1000, up to 10000). The header \`${MORE_CHANGES_HEADER}: true\` says more are waiting.`,
        tags: ['changes'],
        querystring: Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })) }),
        response: { 200: Type.Array(ChangedTransaction), ...errorResponses },
      },
    },
    async (request, reply) => {
      const limit = request.query.limit === undefined ? 1000 : Number(request.query.limit);
      if (limit < 1 || limit > 10000) throw invalidInput('limit must be between 1 and 10000.');
      const { transactions, more } = await services.transactions.listChanged(request.scope, limit);
      reply.header(MORE_CHANGES_HEADER, String(more));
      return transactions.map(changedTransaction);
    },
  );

  app.post(
    '/changed-transactions/:transactionId',
    {
      schema: {
        summary: 'Mark a changed transaction processed',
        description:
          'Removes the changes the vendor has seen in a list; a later change keeps the transaction in the feed.',
        tags: ['changes'],
        params: Type.Object({ transactionId: Type.String() }),
        response: { 200: Type.Object({ id: Type.String(), processed: Type.Boolean() }), ...errorResponses },
      },
    },
    async (request) => {
      await services.transactions.markProcessed(request.scope, request.params.transactionId);
      return { id: request.params.transactionId, processed: true };
    },
  );
}
