import { Type } from 'typebox';
import type { ClockReading } from '../../../domain/billing/index.ts';
import { described, errorResponses } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

const Reading = Type.Object({
  now: Type.String({
    description: "This sandbox's time now (ISO-8601 UTC), real time plus the offset.",
    examples: ['2027-01-31T00:00:00.000Z'],
  }),
  offsetSeconds: Type.Number({ description: 'How far this sandbox is ahead of real time.', examples: [5184000] }),
  billing: Type.Object(
    {
      pending: Type.Number({
        description:
          'Subscriptions with a renewal, retry or period end due by `now` that the worker has not done yet (counted up to 10000).',
        examples: [0],
      }),
      oldestDue: Type.Union([Type.String(), Type.Null()], {
        description:
          'When the oldest of those steps was due, in sandbox time; it moves toward `now` as the worker catches up.',
        examples: [null],
      }),
      caughtUp: Type.Boolean({ description: 'True when all billing due by `now` is done.', examples: [true] }),
    },
    {
      description: "This sandbox's billing: the worker catches up in the background after the clock moved.",
      examples: [{ pending: 0, oldestDue: null, caughtUp: true }],
    },
  ),
});

const present = ({ now, offsetMs, billing }: ClockReading) => ({
  now,
  offsetSeconds: Math.floor(offsetMs / 1000),
  billing,
});

/**
 * The sandbox clock (opentill's addition to the original service's API): read it, or move it forward;
 * the billing worker then does what became due in the background, and a reading says how much is
 * left. Production answers 404.
 */
export function sandboxClockRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/clock',
    {
      schema: {
        operationId: 'readSandboxClock',
        'x-opentill-extension': true,
        summary: "Read this sandbox's clock and how far its billing has caught up",
        description: "opentill's own, sandbox only: production answers 404.",
        tags: ['sandbox'],
        response: { 200: described(Reading, "This sandbox's clock."), ...errorResponses },
      },
    },
    async (request) => present(await services.sandboxClock.read(request.scope)),
  );
  app.post(
    '/clock/advance',
    {
      schema: {
        operationId: 'advanceSandboxClock',
        'x-opentill-extension': true,
        summary: "Move this sandbox's clock forward; the billing worker catches up",
        description:
          'Body: {"seconds": 86400} to move by a number of seconds, or {"to": "2027-01-31T00:00:00.000Z"} to move to an instant: at most 366 days per call, ' +
          'at most 20 years ahead of real time. Time never moves back. The answer comes at once; the renewals, retries and period ends that became due ' +
          'are done by the billing worker in the background, each stamped at its scheduled moment: poll GET /clock until `billing.caughtUp`.',
        tags: ['sandbox'],
        body: Type.Object(
          {
            seconds: Type.Optional(
              Type.Unknown({ description: 'Seconds to move forward (a whole number).', examples: [86400] }),
            ),
            to: Type.Optional(
              Type.Unknown({
                description: 'An instant to move to (ISO-8601).',
                examples: ['2027-01-31T00:00:00.000Z'],
              }),
            ),
          },
          { description: 'One of seconds or to.' },
        ),
        response: { 200: described(Reading, 'The clock, moved.'), ...errorResponses },
      },
    },
    async (request) => present(await services.sandboxClock.advance(request.scope, request.body)),
  );
}
