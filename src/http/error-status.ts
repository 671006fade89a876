import type { ErrorCode } from '../domain/errors.ts';

/** Codes only HTTP can produce: the request itself is malformed, or the server failed. */
export type HttpOnlyErrorCode =
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BODY_TOO_LARGE'
  | 'INVALID_JSON'
  | 'HEADERS_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'BAD_REQUEST'
  | 'INTERNAL_ERROR';

/** Every `error` a response body can carry: the domain's closed set and the HTTP-only ones. */
export type WireErrorCode = ErrorCode | HttpOnlyErrorCode;

/** The one table from error code to HTTP status. */
export const ERROR_STATUS: Record<WireErrorCode, number> = {
  INVALID_INPUT: 400,
  USD_PRICE_REQUIRED: 400,
  PAYLOAD_TOO_LONG: 400,
  INVALID_EMAIL: 400,
  INVALID_STATE: 400,
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  PAYMENT_DECLINED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_CONFLICT: 409,
  REQUEST_IN_PROGRESS: 409,
  PRICE_CHANGED: 409,
  PAYMENT_PENDING: 409,
  LINK_EXPIRED: 410,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};
