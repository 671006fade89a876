/**
 * @opentill/client: a typed client of opentill's /v1 API and a Standard Webhooks verifier, on `fetch`
 * and Web Crypto alone (no dependencies; Node 20+, Deno, Bun, Cloudflare Workers, Vercel Edge).
 */
export { OpenTill, type OpenTillOptions, type CallOptions } from './client.ts';
export type { ChangesOptions } from './changes.ts';
export type { RetryOptions } from './transport.ts';
export {
  OpenTillError,
  InvalidRequestError,
  AuthenticationError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  ServerError,
  ConnectionError,
  type OpenTillErrorCode,
} from './errors.ts';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookFailure,
  type WebhookHeaders,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookTransaction,
} from './webhooks.ts';
export type * from './model.ts';
export type * from './wire.ts';
export type { paths, components } from './generated/openapi.ts';
