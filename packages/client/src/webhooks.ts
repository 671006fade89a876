import type { ChangeStatus } from './model.ts';
import type { WireChangedTransaction, WireEntry } from './wire.ts';

/**
 * Standard Webhooks verification (https://www.standardwebhooks.com) with Web Crypto alone, so it runs
 * wherever `crypto.subtle` does: Node 20+, Deno, Bun, Cloudflare Workers, Vercel Edge. The signed
 * content is the bytes `${webhook-id}.${webhook-timestamp}.` followed by the body exactly as received;
 * the secret is `whsec_` and the base64 of the HMAC key. `webhook-signature` may hold several
 * space-separated `v1,<base64>` signatures (a secret being rotated): one match is enough. Each is
 * checked by `crypto.subtle.verify`, which compares in constant time.
 */

export type WebhookFailure =
  | 'MISSING_HEADERS'
  | 'INVALID_SECRET'
  | 'INVALID_TIMESTAMP'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_TOO_NEW'
  | 'NO_MATCHING_SIGNATURE'
  | 'INVALID_JSON';

/** What a delivery's `type` says; `webhook.test` is `opentill webhook test`'s. */
export type WebhookEventType =
  | 'transaction.new'
  | 'transaction.renewed'
  | 'transaction.cancelled'
  | 'transaction.refunded'
  | 'transaction.trial'
  | 'transaction.vaulted_activation'
  | 'transaction.vaulted_deactivation';

/** A delivery's `data`: the transaction as the change feed lists it when it changed, with the change. */
export type WebhookTransaction = WireChangedTransaction & {
  /** The change flag of this event. */
  changeFlag: ChangeStatus;
  /** The event's id, as the envelope's `id` and the `webhook-id` header: a duplicate delivery has the same. */
  eventId: string;
  /** The ledger entry booked with the change (a payment, a refund), null when none (a cancel). */
  ledgerEntry: WireEntry | null;
  /** A refund's amount, and whether the payment keeps something. */
  refund?: { amount: string; currency: string; partial: boolean };
};

/**
 * A delivery's body, the Standard Webhooks envelope (docs/decisions.md §27 and §31): not in the OpenAPI
 * document, so written here by hand.
 */
export type WebhookEvent =
  | { id: string; type: WebhookEventType; timestamp: string; data: WebhookTransaction }
  | { id: string; type: 'webhook.test'; timestamp: string; data: unknown };

export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailure;

  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

export type WebhookHeaders =
  Headers | { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the timestamp may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (default Date.now()). */
  now?: number;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function base64Bytes(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function bodyBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function checkTimestamp(timestamp: string, now: number, toleranceSeconds: number) {
  if (!/^\d+$/.test(timestamp))
    throw new WebhookVerificationError('INVALID_TIMESTAMP', 'webhook-timestamp is not a number');
  const age = Math.floor(now / 1000) - Number(timestamp);
  if (age > toleranceSeconds) throw new WebhookVerificationError('TIMESTAMP_TOO_OLD', 'webhook-timestamp is too old');
  if (age < -toleranceSeconds)
    throw new WebhookVerificationError('TIMESTAMP_TOO_NEW', 'webhook-timestamp is in the future');
}

/** The HMAC key of a `whsec_<base64>` secret (the prefix may be left out). */
async function hmacKey(secret: string): Promise<CryptoKey> {
  const key = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (key === undefined || key.length === 0)
    throw new WebhookVerificationError('INVALID_SECRET', 'the secret is not whsec_<base64>');
  return globalThis.crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
}

/** Whether one of the header's v1 signatures is the HMAC of `signed`. */
async function anySignatureMatches(key: CryptoKey, signatures: string, signed: Uint8Array): Promise<boolean> {
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const signature = base64Bytes(value);
    if (signature === undefined) continue;
    if (await globalThis.crypto.subtle.verify('HMAC', key, signature as BufferSource, signed as BufferSource))
      return true;
  }
  return false;
}

/**
 * Verifies a webhook delivery and returns its parsed JSON body; throws WebhookVerificationError when
 * it is not one signed with `secret` within the tolerance. Pass the body exactly as received (the
 * request's text or bytes), never a re-serialised object.
 */
export async function verifyWebhook<T = WebhookEvent>(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError(
      'MISSING_HEADERS',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  checkTimestamp(timestamp, options.now ?? Date.now(), options.toleranceSeconds ?? 300);
  const body = bodyBytes(rawBody);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  if (!(await anySignatureMatches(await hmacKey(secret), signatures, signed)))
    throw new WebhookVerificationError('NO_MATCHING_SIGNATURE', 'no signature matches this body and secret');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as T;
  } catch {
    throw new WebhookVerificationError('INVALID_JSON', 'the signed body is not JSON');
  }
}
