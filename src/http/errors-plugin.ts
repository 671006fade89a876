import FindMyWay from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { ERROR_STATUS, type WireErrorCode } from './error-status.ts';

/**
 * Every error answer is `{error, message, requestId}`; nothing a client sends can produce a bare
 * 500. The status comes from the one table, unless the framework knows a more precise 4xx.
 */
export function sendError(
  reply: FastifyReply,
  error: WireErrorCode,
  message: string,
  options: { status?: number; retryAfterSeconds?: number } = {},
) {
  if (options.retryAfterSeconds !== undefined) reply.header('retry-after', String(options.retryAfterSeconds));
  return reply
    .code(options.status ?? ERROR_STATUS[error])
    .type('application/json; charset=utf-8')
    .send({ error, message, requestId: reply.request.id });
}

/** What a failed request tells its client: the wire code, a message that says what to fix, the status. */
export interface ClientError {
  error: WireErrorCode;
  message: string;
  status: number;
  retryAfterSeconds?: number | undefined;
}

const FRAMEWORK_ERRORS: Record<string, [WireErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    'UNSUPPORTED_MEDIA_TYPE',
    'Send the body as JSON with the header Content-Type: application/json.',
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: ['BODY_TOO_LARGE', 'The body is larger than 1 MB.'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['INVALID_JSON', 'The body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['INVALID_JSON', 'The body is empty; send a JSON object.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['INVALID_INPUT', 'The Content-Length header does not match the body.'],
  FST_ERR_BAD_URL: [
    'INVALID_INPUT',
    'The URL is malformed: a "%" must start a percent-encoded UTF-8 sequence such as %20.',
  ],
  FST_ERR_MAX_PARAM_LENGTH: ['INVALID_INPUT', 'A path segment is longer than 1000 characters.'],
  FST_ERR_ASYNC_CONSTRAINT: ['INVALID_INPUT', 'The request could not be routed.'],
};

/**
 * The client's part of a failed request, or undefined when the failure is ours (a bug or an outage:
 * 500). Shared by the API's JSON answers and the pages' problem page, so both say the same thing.
 */
export function describeError(err: unknown): ClientError | undefined {
  if (err instanceof AppError)
    return {
      error: err.code,
      message: err.message,
      status: ERROR_STATUS[err.code],
      retryAfterSeconds: err.retryAfterSeconds,
    };
  if (err === null || typeof err !== 'object') return undefined;
  const fe = err as Partial<FastifyError>;
  if (fe.validation) return { error: 'INVALID_INPUT', message: validationMessage(fe as FastifyError), status: 400 };
  const known = fe.code ? FRAMEWORK_ERRORS[fe.code] : undefined;
  if (known) return { error: known[0], message: known[1], status: fe.statusCode ?? ERROR_STATUS[known[0]] };
  const message = typeof fe.message === 'string' && fe.message !== '' ? fe.message : 'The request is not valid.';
  if (fe.statusCode === 429) return { error: 'RATE_LIMITED', message, status: 429 };
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)
    return { error: 'INVALID_INPUT', message, status: fe.statusCode };
  return undefined;
}

/** A failure of ours: logged, and told to the client without any detail. */
export const INTERNAL: ClientError = {
  error: 'INTERNAL_ERROR',
  message: 'Something went wrong on our side; nothing was changed by this request. Retry later.',
  status: 500,
};

declare module 'fastify' {
  interface FastifyRequest {
    /** A failure of ours this request is answered for (a 5xx): what the request log writes, once per kind and interval (src/http/request-log.ts). */
    failure: { error: WireErrorCode; err: unknown } | null;
  }
}

/**
 * What every error handler tells the client of `err`: `describeError`'s answer, or INTERNAL for a
 * failure of ours. A 5xx is noted on the request, for the request log and the error count.
 */
export function describeFailure(request: FastifyRequest, err: unknown): ClientError {
  const described = describeError(err) ?? INTERNAL;
  if (described.status >= 500) request.failure = { error: described.error, err };
  return described;
}

/**
 * The server option `frameworkErrors`: requests Fastify refuses before any route or hook sees them
 * (a malformed percent-encoding in the path, a path segment over the router's limit) get the same
 * `{error, message, requestId}` as every other error instead of Fastify's own body.
 */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (err, request, reply) => {
  const described = describeFailure(request, err);
  // The app's onSend hooks do not run for these answers.
  reply.header('x-request-id', request.id);
  void sendError(reply, described.error, described.message, { status: described.status });
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
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
      (m) => m !== request.method && known.find(m as 'GET', path),
    );
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        reply,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed here; use ${allowed.join(' or ')}.`,
      );
    }
    return sendError(reply, 'NOT_FOUND', `There is no ${request.method} ${path}. The API lives under /v1 (see /docs).`);
  });

  app.decorateRequest('failure', null);
  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    const described = describeFailure(request, err);
    return sendError(reply, described.error, described.message, {
      status: described.status,
      retryAfterSeconds: described.retryAfterSeconds,
    });
  });
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = `${err.validationContext ?? 'body'}${first.instancePath ? first.instancePath.replace(/\//g, '.') : ''}`;
  if (first.keyword === 'additionalProperties') {
    return `${where} has an unknown field "${(first.params as { additionalProperty?: string }).additionalProperty}".`;
  }
  if (first.keyword === 'required')
    return `${where} needs the field "${(first.params as { missingProperty?: string }).missingProperty}".`;
  return `${where} ${first.message ?? 'is invalid'}.`;
}
