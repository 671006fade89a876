import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, INTERNAL } from '../errors-plugin.ts';

/**
 * The error handler of the pages' JSON endpoints (what their scripts call): every failure, a body
 * the page parser refused included, is `{error, message}` JSON, never an HTML problem page.
 */
export function jsonErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const described = describeError(err) ?? INTERNAL;
  if (described === INTERNAL) request.log.error({ err }, 'unhandled error');
  void reply.code(described.status).header('cache-control', 'no-store').send({ error: described.error, message: described.message });
}
