/**
 * Every refusal and failure of an opentill call is an OpenTillError (or one of its kinds below), with
 * the server's `error` code, its message and the `requestId` to quote when asking the operator for
 * help. Expected outcomes (a declined vaulted charge, a refund still pending) are results, not errors.
 */

/** The `error` codes opentill answers with; an unknown future code still arrives as a string. */
export type OpenTillErrorCode =
  | 'INVALID_INPUT'
  | 'USD_PRICE_REQUIRED'
  | 'PAYLOAD_TOO_LONG'
  | 'INVALID_EMAIL'
  | 'INVALID_STATE'
  | 'BAD_REQUEST'
  | 'INVALID_JSON'
  | 'UNAUTHORIZED'
  | 'PAYMENT_DECLINED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'IDEMPOTENCY_CONFLICT'
  | 'REQUEST_IN_PROGRESS'
  | 'PRICE_CHANGED'
  | 'PAYMENT_PENDING'
  | 'LINK_EXPIRED'
  | 'BODY_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE'
  /** No answer at all: the network failed or the call was aborted. */
  | 'CONNECTION_ERROR'
  | (string & {});

export interface OpenTillErrorDetails {
  status: number;
  code: OpenTillErrorCode;
  message: string;
  requestId: string | undefined;
  retryAfterSeconds: number | undefined;
  idempotencyKey: string | undefined;
  method: string;
  path: string;
  body: unknown;
  cause?: unknown;
}

export class OpenTillError extends Error {
  /** The HTTP status; 0 when no answer came (CONNECTION_ERROR). */
  readonly status: number;
  readonly code: OpenTillErrorCode;
  /** The server's id of the request (the body's `requestId`, else the X-Request-Id header). */
  readonly requestId: string | undefined;
  /** The answer's Retry-After, in seconds. */
  readonly retryAfterSeconds: number | undefined;
  /** The Idempotency-Key the call was sent with (POSTs): pass it again to retry the same call later. */
  readonly idempotencyKey: string | undefined;
  readonly method: string;
  readonly path: string;
  /** The answer's body as it came (parsed JSON, or text). */
  readonly body: unknown;

  constructor(details: OpenTillErrorDetails) {
    const id = details.requestId ? ` (request ${details.requestId})` : '';
    super(`${details.method} ${details.path}: ${details.status} ${details.code}: ${details.message}${id}`, {
      cause: details.cause,
    });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.idempotencyKey = details.idempotencyKey;
    this.method = details.method;
    this.path = details.path;
    this.body = details.body;
  }
}

/** 400: the input was refused; `message` says what to fix. */
export class InvalidRequestError extends OpenTillError {}
/** 401 or 403: the credential is wrong, revoked, or may not use this environment. */
export class AuthenticationError extends OpenTillError {}
/** 404: no such transaction, product or licence for this vendor and environment. */
export class NotFoundError extends OpenTillError {}
/** 409: an Idempotency-Key conflict, a price that changed, or a payment still pending after the retries. */
export class ConflictError extends OpenTillError {}
/** 429: too many requests; `retryAfterSeconds` says when to come back. */
export class RateLimitError extends OpenTillError {}
/** 5xx: opentill failed or is unavailable, still so after the retries. */
export class ServerError extends OpenTillError {}
/** No answer: the network failed, or the call was aborted. */
export class ConnectionError extends OpenTillError {}

/** The error class for an answer's status. */
export function errorFor(details: OpenTillErrorDetails): OpenTillError {
  const { status } = details;
  if (status === 0) return new ConnectionError(details);
  if (status === 400) return new InvalidRequestError(details);
  if (status === 401 || status === 403) return new AuthenticationError(details);
  if (status === 404) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 429) return new RateLimitError(details);
  if (status >= 500) return new ServerError(details);
  return new OpenTillError(details);
}
