import type { ErrorCode } from '../domain/errors.ts';

/** The one table from error code to HTTP status. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  USD_PRICE_REQUIRED: 400,
  PAYLOAD_TOO_LONG: 400,
  INVALID_EMAIL: 400,
  INVALID_STATE: 400,
  UNAUTHORIZED: 401,
  PAYMENT_DECLINED: 402,
  NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  REQUEST_IN_PROGRESS: 409,
  LINK_EXPIRED: 410,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};
