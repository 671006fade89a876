import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, invalidInput } from '../domain/errors.ts';
import type { Repositories } from '../domain/ports.ts';

/**
 * `Idempotency-Key` on POSTs (DECISIONS.md): the same key with the same request replays the first
 * answer byte for byte; with another request it is 409; while the first is still running, 409 with
 * Retry-After. A 5xx answer releases the key so the client may retry.
 */
export function idempotencyHooks(store: Pick<Repositories, 'idempotency'>, now: () => Date) {
  return {
    async preHandler(request: FastifyRequest, reply: FastifyReply) {
      request.idempotencyKey = null;
      const header = request.headers['idempotency-key'];
      if (request.method !== 'POST' || header === undefined) return;
      const key = Array.isArray(header) ? header[0]! : header;
      if (key.length === 0 || key.length > 255) throw invalidInput('Idempotency-Key must have 1 to 255 characters.');
      const hash = createHash('sha256')
        .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
        .digest('hex');
      const earlier = await store.idempotency.claim(request.scope, key, hash, now().toISOString());
      if (!earlier) {
        request.idempotencyKey = key;
        return;
      }
      if (earlier.requestHash !== hash) {
        throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used for a different request; use a new key for a new request.');
      }
      if (earlier.state === 'IN_PROGRESS') {
        throw new AppError('REQUEST_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry shortly.', { retryAfterSeconds: 1 });
      }
      reply.header('idempotent-replayed', 'true');
      return reply.code(earlier.statusCode ?? 200).type('application/json; charset=utf-8').send(earlier.body ?? '');
    },

    async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
      const key = request.idempotencyKey;
      if (!key) return payload;
      request.idempotencyKey = null;
      if (reply.statusCode >= 500) await store.idempotency.release(request.scope, key);
      else await store.idempotency.complete(request.scope, key, reply.statusCode, typeof payload === 'string' ? payload : String(payload ?? ''));
      return payload;
    },
  };
}
