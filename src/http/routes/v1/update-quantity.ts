import { Type, type Static } from 'typebox';
import { QUANTITY_LIMIT } from '../../../domain/catalog/index.ts';
import type { SeatChangeResult } from '../../../domain/checkout/index.ts';
import { AppError } from '../../../domain/errors.ts';
import { described, errorResponses, TransactionParams } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

/** opentill's own: not in the original API (docs/decisions.md §39). */
const OWN = { 'x-opentill-extension': true, tags: ['transactions'] } as const;

const UpdateQuantityBody = Type.Object(
  {
    quantity: Type.Integer({
      minimum: 1,
      maximum: QUANTITY_LIMIT,
      description:
        "The subscription's seats from now on (more) or from the end of the paid period (fewer), within the product's range.",
      examples: [8],
    }),
  },
  {
    additionalProperties: false,
    description: 'The new number of seats. A field this call does not know is refused (400).',
  },
);

const UpdateQuantityResult = Type.Object(
  {
    id: Type.String({
      description: 'The subscription that goes on with the new quantity: a new transaction, as a plan switch makes.',
      examples: ['TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'],
    }),
    replaces: Type.String({
      description: 'The subscription it replaces: cancelled now (more seats) or at the end of its paid period (fewer).',
      examples: ['TC-TR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
    }),
    quantity: Type.Integer({ description: 'The seats of the subscription that goes on.', examples: [8] }),
    effective: Type.String({
      enum: ['NOW', 'PERIOD_END'],
      description:
        'NOW: more seats from now on, nothing charged today, the value left of the paid period brings the next charge forward. PERIOD_END: fewer seats once the paid period ends.',
      examples: ['NOW'],
    }),
    nextCharge: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the new quantity is first charged (UTC).',
      examples: ['2030-04-21T00:00:00.000Z'],
    }),
  },
  { description: 'The seat change as done.' },
);

function present(change: SeatChangeResult, replaces: string): Static<typeof UpdateQuantityResult> {
  const { result } = change;
  if (result.status !== 'PAID') throw new AppError('INVALID_STATE', result.message);
  return {
    id: result.transaction.id,
    replaces,
    quantity: result.transaction.quantity,
    effective: change.effective,
    nextCharge: result.transaction.nextCharge,
  };
}

/**
 * POST /v1/update-quantity/{id}: more or fewer seats on an active per-seat subscription, as a plan
 * switch to the same product (docs/decisions.md §39). Sent again with the same quantity, it answers
 * what the first did; with an Idempotency-Key, a retry replays the first answer.
 */
export function updateQuantityRoute(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/update-quantity/:transactionId',
    {
      schema: {
        ...OWN,
        operationId: 'updateQuantity',
        summary: "Change a subscription's seats (opentill)",
        description:
          "opentill's own. More seats take effect now (prorated: nothing charged today, the next charge comes earlier); fewer at the end of the paid period. The subscription goes on as a new transaction, as a plan switch.",
        params: TransactionParams,
        body: UpdateQuantityBody,
        response: { 200: described(UpdateQuantityResult, 'The seats changed.'), ...errorResponses },
      },
    },
    async (request) => {
      const { transactionId } = request.params;
      const change = await services.purchases.changeSeats(request.scope, {
        transactionId,
        quantity: request.body.quantity,
      });
      return present(change, transactionId);
    },
  );
}
