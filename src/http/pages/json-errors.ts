import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeFailure } from '../errors-plugin.ts';

/**
 * The error handler of the pages' JSON endpoints (what their scripts call): every failure, a body
 * the page parser refused included, is `{error, message}` JSON, never an HTML problem page.
 */
export function jsonErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const described = describeFailure(request, err);
  if (described.retryAfterSeconds !== undefined) reply.header('retry-after', String(described.retryAfterSeconds));
  void reply
    .code(described.status)
    .header('cache-control', 'no-store')
    .send({ error: described.error, message: described.message });
}
