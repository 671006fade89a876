import { Type } from 'typebox';
import { errorResponses } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';

const Reading = Type.Object({ now: Type.String(), offsetSeconds: Type.Number() });
const Report = Type.Object({
  renewed: Type.Number(),
  declined: Type.Number(),
  ended: Type.Number(),
  failed: Type.Number(),
  unknown: Type.Number(),
  expiredOffers: Type.Number(),
  errors: Type.Array(Type.String()),
});

/**
 * The sandbox clock (opentill's addition to the original service's API): read it, or move it forward and have
 * the billing worker do at once everything that became due. Production answers 404.
 */
export function sandboxClockRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.get('/clock', { schema: { summary: "Read this sandbox's clock", tags: ['sandbox'], response: { 200: Reading, ...errorResponses } } }, async (request) => {
    const { now, offsetMs } = await services.sandboxClock.read(request.scope);
    return { now, offsetSeconds: Math.floor(offsetMs / 1000) };
  });
  app.post(
    '/clock/advance',
    {
      schema: {
        summary: "Move this sandbox's clock forward and bill what became due",
        description:
          'Body: {"seconds": 86400} to move by a number of seconds, or {"to": "2027-01-31T00:00:00.000Z"} to move to an instant. Time never moves back.',
        tags: ['sandbox'],
        body: Type.Object({ seconds: Type.Optional(Type.Unknown()), to: Type.Optional(Type.Unknown()) }),
        response: { 200: Type.Object({ ...Reading.properties, billing: Report }), ...errorResponses },
      },
    },
    async (request) => {
      const { now, offsetMs, billing } = await services.sandboxClock.advance(request.scope, request.body);
      return { now, offsetSeconds: Math.floor(offsetMs / 1000), billing };
    },
  );
}
