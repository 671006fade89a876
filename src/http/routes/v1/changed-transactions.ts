import { Type } from 'typebox';
import { invalidInput } from '../../../domain/errors.ts';
import { changedTransaction } from '../../presenters.ts';
import { ChangedTransaction, described, errorResponses, stringified, TransactionParams } from '../../schemas.ts';
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
        operationId: 'listChangedTransactions',
        summary: 'Transactions changed since they were last marked processed, oldest change first',
        description: `At most \`limit\` (default 1000, up to 10000). The header \`${MORE_CHANGES_HEADER}: true\` says more are waiting.`,
        tags: ['changes'],
        querystring: Type.Object({
          limit: Type.Optional(
            Type.String({
              pattern: '^[0-9]{1,6}$',
              description: 'How many at most, 1 to 10000 (default 1000).',
              examples: ['1000'],
            }),
          ),
        }),
        response: {
          200: described(
            Type.Array(ChangedTransaction),
            `The changed transactions, oldest change first; the header ${MORE_CHANGES_HEADER} says whether more are waiting.`,
          ),
          ...errorResponses,
        },
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
        operationId: 'markTransactionProcessed',
        summary: 'Mark a changed transaction processed',
        description:
          'Removes the changes the vendor has seen in a list; a later change keeps the transaction in the feed.',
        tags: ['changes'],
        params: TransactionParams,
        response: {
          200: Type.Object(
            {
              id: Type.String({ description: 'The transaction id.', examples: ['TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'] }),
              processed: Type.Boolean({ description: 'Always true.', examples: [true] }),
            },
            { description: 'Marked processed: its changes seen so far leave the feed.' },
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      await services.transactions.markProcessed(request.scope, request.params.transactionId);
      return { id: request.params.transactionId, processed: true };
    },
  );
}
