import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, invalidInput } from '../domain/errors.ts';
import { STALE_CLAIM_MS, type IdempotencyService } from '../domain/idempotency.ts';

/**
 * `Idempotency-Key` on the API's POSTs, through the domain's one idempotency mechanism: the answer
 * (status and body) is what is kept and replayed byte for byte. A 5xx answer releases the key so the
 * client may retry; so does a 202 (a payment not confirmed yet), whose retry learns the outcome.
 */
export function idempotencyHooks(idempotency: IdempotencyService) {
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
      const claim = await idempotency.claim(request.scope, key, hash);
      if (claim.status === 'claimed') {
        request.idempotencyKey = key;
        return;
      }
      reply.header('idempotent-replayed', 'true');
      return reply.code(claim.statusCode).type('application/json; charset=utf-8').send(claim.body);
    },

    async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
      const key = request.idempotencyKey;
      if (!key) return payload;
      request.idempotencyKey = null;
      // A 5xx changed nothing; a 202 and a 409 PAYMENT_PENDING (the one 409 with Retry-After a handler
      // answers) are not final: the key stays free for the retry that learns the outcome. Nor is a
      // conflict the work found (the key's charge was of another amount): it changed nothing, and kept,
      // it would bind the key to the conflicting request and refuse the key's own.
      const final =
        reply.statusCode < 500 &&
        reply.statusCode !== 202 &&
        !(
          reply.statusCode === 409 &&
          (reply.hasHeader('retry-after') || errorCodeOf(payload) === 'IDEMPOTENCY_CONFLICT')
        );
      const body = typeof payload === 'string' ? payload : String(payload ?? '');
      const write = () =>
        final
          ? idempotency.complete(request.scope, key, reply.statusCode, body)
          : idempotency.release(request.scope, key);
      try {
        await write();
      } catch (err) {
        // The database went away after the work was done (or refused): the answer is still this one,
        // and the key is written as soon as the database is back instead of staying "in progress"
        // until a retry may take it over (docs/operations.md).
        if (!(err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE')) throw err;
        writeLater(write, request.log);
      }
      return payload;
    },
  };
}

/** Tries a key's write again, with a growing pause, for as long as a retry would otherwise wait for the key. */
function writeLater(
  write: () => Promise<unknown>,
  log: FastifyBaseLogger,
  delayMs = 250,
  untilMs = Date.now() + STALE_CLAIM_MS,
) {
  setTimeout(() => {
    write().catch((err: unknown) => {
      if (Date.now() < untilMs && err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE')
        writeLater(write, log, Math.min(delayMs * 2, 5_000), untilMs);
      else log.warn({ err }, 'an Idempotency-Key could not be written; a retry takes it over once it is stale');
    });
  }, delayMs).unref();
}

/** The `error` of a JSON error answer, if the payload is one. */
function errorCodeOf(payload: unknown): unknown {
  if (typeof payload !== 'string') return undefined;
  try {
    return (JSON.parse(payload) as { error?: unknown }).error;
  } catch {
    return undefined;
  }
}
