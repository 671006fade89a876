import { newId, ID_PREFIX } from '../ids.ts';
import type { ChangeFlag } from '../model.ts';

/** The event type of each change flag of the feed (docs/decisions.md §27). */
export const EVENT_TYPES: Readonly<Record<ChangeFlag | 'TEST', string>> = {
  CHANGED_STATUS_NEW: 'transaction.new',
  CHANGED_STATUS_RENEWED: 'transaction.renewed',
  CHANGED_STATUS_CANCELLED: 'transaction.cancelled',
  CHANGED_STATUS_REFUNDED: 'transaction.refunded',
  CHANGED_STATUS_TRIAL: 'transaction.trial',
  CHANGED_STATUS_VAULTED_ACTIVATION: 'transaction.vaulted_activation',
  CHANGED_STATUS_VAULTED_DEACTIVATION: 'transaction.vaulted_deactivation',
  TEST: 'webhook.test',
};

/** The wait after each failed try: 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h until retrying stops. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
const DAY_MS = 86_400_000;
/** How long an event is retried after its first try, and how long an endpoint may fail before it is disabled. */
export const RETRY_FOR_MS = 3 * DAY_MS;
export const DISABLE_AFTER_MS = 3 * DAY_MS;
/** How long one try may take, connecting, sending and waiting for the answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** The wait after the `tries`-th failed try (1 for the first). */
export function retryDelayMs(tries: number, delays: readonly number[] = RETRY_DELAYS_MS): number {
  return delays[Math.min(Math.max(tries, 1), delays.length) - 1]!;
}

/** A time-ordered, unguessable id with a prefix of webhooks' own (`evt_`, `we_`). */
export function webhookId(prefix: 'evt_' | 'we_', nowMs: number = Date.now()): string {
  return prefix + newId('entry', nowMs).slice(ID_PREFIX.entry.length);
}

/** What a try's POST is, and what came back: a status, or why there was none (refused, timed out, unreachable). */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Whether the address the URL resolves to may be private (the sandbox, or WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Whether it may be link-local too (WEBHOOKS_ALLOW_PRIVATE only): a cloud's metadata service is not the sandbox's. */
  allowLinkLocal: boolean;
}
export type WebhookResponse = { status: number } | { status: null; error: string };

/** The network: node's HTTP client in production (src/outbound/webhook-transport.ts), the same in tests. */
export interface WebhookTransport {
  post(request: WebhookRequest): Promise<WebhookResponse>;
  /** The addresses a host name resolves to (for the check when an endpoint is added). */
  resolve(host: string): Promise<string[]>;
}

export interface WebhookReport {
  delivered: number;
  retried: number;
  failed: number;
  disabled: number;
  /** The run stopped with events still due (its time was up). */
  more: boolean;
}
