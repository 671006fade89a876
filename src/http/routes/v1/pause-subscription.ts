import { absentBodyIsNull, described, errorResponses, optionalBody, TransactionParams } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { PauseBody, PauseResult, presentPause, ResumeBody } from './pause-schemas.ts';

/** opentill's own: not in the original API (docs/decisions.md §41). */
const OWN = { 'x-opentill-extension': true, tags: ['transactions'] } as const;

/**
 * POST /v1/pause-subscription/{id} and /v1/resume-subscription/{id}. Asked again, each answers 200 with
 * `changed: false`; with an Idempotency-Key, a retry replays the first answer.
 */
export function pauseSubscriptionRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.post(
    '/pause-subscription/:transactionId',
    {
      preValidation: absentBodyIsNull,
      schema: {
        ...OWN,
        operationId: 'pauseSubscription',
        summary: 'Pause a subscription at the end of its paid period (opentill)',
        description:
          "opentill's own. Nothing is charged while paused; `transactionStatus` stays SUBSCRIPTION_STATUS_ACTIVE and `nextCharge` is the resume date (null until resumed). Refused while a renewal is failing or due.",
        params: TransactionParams,
        body: optionalBody(PauseBody),
        response: { 200: described(PauseResult, 'Paused, or already paused so (changed: false).'), ...errorResponses },
      },
    },
    async (request) => {
      const resumeAt = request.body?.resumeAt ?? null;
      return presentPause(
        await services.transactions.pauses.pause(request.scope, request.params.transactionId, resumeAt),
      );
    },
  );

  app.post(
    '/resume-subscription/:transactionId',
    {
      preValidation: absentBodyIsNull,
      schema: {
        ...OWN,
        operationId: 'resumeSubscription',
        summary: 'Resume a paused subscription now (opentill)',
        description:
          "opentill's own. A pause in effect ends now: a new period starts and is charged now. A pause not in effect yet is called off. Not paused: nothing changes.",
        params: TransactionParams,
        body: optionalBody(ResumeBody),
        response: { 200: described(PauseResult, 'Resumed, or not paused (changed: false).'), ...errorResponses },
      },
    },
    async (request) =>
      presentPause(await services.transactions.pauses.resume(request.scope, request.params.transactionId)),
  );
}
