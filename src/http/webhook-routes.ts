import type { FastifyError } from 'fastify';
import { sendError } from './errors-plugin.ts';
import type { EnvironmentContext, HttpApp } from './http-app.ts';

/** An event the processor sends is a few kilobytes; this leaves ample room and no more. */
const EVENT_BODY_LIMIT = 512 * 1024;

/**
 * The payment processor's events for one environment (production at `{base_url}/webhooks/stripe`,
 * the sandbox at `{sandbox_url}/webhooks/stripe`), docs/decisions.md §10b. The signature is
 * checked over the body exactly as it arrived, so this plugin reads it raw (its own content-type
 * parser, encapsulated here: the API keeps parsing JSON). A good event is stored once and answered
 * at once with 200; the worker acts on it. No API credentials (the signature is the credential) and
 * not in the API's documentation.
 */
export async function webhookPlugin(app: HttpApp, { services, environment }: EnvironmentContext) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: EVENT_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendError(reply, 'BODY_TOO_LARGE', `An event's body is at most ${EVENT_BODY_LIMIT / 1024} KiB.`);
    // Everything else is answered as everywhere else (the app's error handler).
    throw err;
  });

  app.post('/stripe', { schema: { hide: true }, bodyLimit: EVENT_BODY_LIMIT }, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const header = request.headers['stripe-signature'];
    const result = await services.processorEvents.receive(
      environment,
      'stripe',
      raw,
      typeof header === 'string' ? header : undefined,
    );
    switch (result.status) {
      case 'STORED':
      case 'DUPLICATE':
        return reply.code(200).send({ received: true });
      case 'INVALID':
        return sendError(reply, 'INVALID_INPUT', result.message);
      case 'NOT_FOUND':
        return sendError(reply, 'NOT_FOUND', result.message);
    }
  });
}
