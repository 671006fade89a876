import FindMyWay from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { ERROR_STATUS } from './error-status.ts';

/** Every error answer is `{error, message}`; nothing a client sends can produce a bare 500. */
export function sendError(reply: FastifyReply, status: number, error: string, message: string, retryAfterSeconds?: number) {
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
  return reply.code(status).type('application/json; charset=utf-8').send({ error, message });
}

const FRAMEWORK_ERRORS: Record<string, [string, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['BODY_TOO_LARGE', 'The body is larger than 1 MB.'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['INVALID_JSON', 'The body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['INVALID_JSON', 'The body is empty; send a JSON object.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['INVALID_INPUT', 'The Content-Length header does not match the body.'],
  FST_ERR_BAD_URL: ['INVALID_INPUT', 'The URL is malformed.'],
  FST_ERR_ASYNC_CONSTRAINT: ['INVALID_INPUT', 'The request could not be routed.'],
};

export function registerErrorHandling(app: FastifyInstance) {
  // Routes registered so far, to tell an unknown path (404) from a known path with another method (405).
  const known = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      try {
        known.on(method as 'GET', route.url, () => undefined);
      } catch {
        // the same route registered twice (not possible in fastify): ignore
      }
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => m !== request.method && known.find(m as 'GET', path));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, 405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(' or ')}.`);
    }
    return sendError(reply, 404, 'NOT_FOUND', `There is no ${request.method} ${path}. The API lives under /v1 (see /docs).`);
  });

  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    if (err instanceof AppError) {
      return sendError(reply, ERROR_STATUS[err.code], err.code, err.message, err.retryAfterSeconds);
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      return sendError(reply, 400, 'INVALID_INPUT', validationMessage(fe));
    }
    const known = fe.code ? FRAMEWORK_ERRORS[fe.code] : undefined;
    if (known) return sendError(reply, fe.statusCode ?? 400, known[0], known[1]);
    if (fe.statusCode === 429) return sendError(reply, 429, 'RATE_LIMITED', fe.message);
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      return sendError(reply, fe.statusCode, 'INVALID_INPUT', fe.message);
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, 500, 'INTERNAL_ERROR', 'Something went wrong on our side; nothing was changed by this request. Retry later.');
  });
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = `${err.validationContext ?? 'body'}${first.instancePath ? first.instancePath.replace(/\//g, '.') : ''}`;
  if (first.keyword === 'additionalProperties') {
    return `${where} has an unknown field "${(first.params as { additionalProperty?: string }).additionalProperty}".`;
  }
  if (first.keyword === 'required') return `${where} needs the field "${(first.params as { missingProperty?: string }).missingProperty}".`;
  return `${where} ${first.message ?? 'is invalid'}.`;
}
