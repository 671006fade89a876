/**
 * The closed set of error codes the domain can raise. The HTTP layer maps each code to a status
 * in one table (src/http/error-status.ts); the CLI prints the message. Expected outcomes such as a
 * declined card are values, not errors.
 */
export type ErrorCode =
  | 'INVALID_INPUT'
  | 'USD_PRICE_REQUIRED'
  | 'PAYLOAD_TOO_LONG'
  | 'INVALID_EMAIL'
  | 'INVALID_STATE'
  | 'NOT_FOUND'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'LINK_EXPIRED'
  | 'IDEMPOTENCY_CONFLICT'
  | 'REQUEST_IN_PROGRESS'
  | 'RATE_LIMITED'
  | 'PAYMENT_DECLINED'
  | 'PRICE_CHANGED'
  | 'PAYMENT_PENDING'
  | 'SERVICE_UNAVAILABLE';

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryAfterSeconds: number | undefined;

  /** `cause`: what failed underneath (a driver's error), for the log; never shown to a client. */
  constructor(code: ErrorCode, message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const invalidInput = (message: string) => new AppError('INVALID_INPUT', message);
export const notFound = (what: string) =>
  new AppError('NOT_FOUND', `${what} was not found for this vendor and environment.`);
export const invalidState = (message: string) => new AppError('INVALID_STATE', message);
