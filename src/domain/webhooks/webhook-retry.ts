import type { WebhookEvent, WebhookOutcome } from '../ports.ts';
import { RETRY_FOR_MS, retryDelayMs, type WebhookResponse } from './webhook-model.ts';

/** A 2xx answer delivers; anything else (a redirect included: none is followed) is a failed try. */
export const delivered = (response: WebhookResponse) =>
  response.status !== null && response.status >= 200 && response.status < 300;

/**
 * An event after a try at `at` (docs/decisions.md §27): delivered on a 2xx; else tried again after
 * the next wait of the schedule, until 3 days after its first try, the last try falling on that
 * moment; a try failing then or later gives it up.
 */
export function afterTry(
  event: WebhookEvent,
  response: WebhookResponse,
  at: Date,
  delays?: readonly number[],
): WebhookOutcome {
  const tries = event.tries + 1;
  const lastTryAt = at.toISOString();
  const giveUpAt = event.giveUpAt || new Date(at.getTime() + RETRY_FOR_MS).toISOString();
  const lastStatus = response.status;
  if (delivered(response))
    return {
      status: 'DELIVERED',
      tries,
      nextTryAt: event.nextTryAt,
      giveUpAt,
      lastStatus,
      lastError: null,
      lastTryAt,
      deliveredAt: lastTryAt,
    };
  const lastError = response.status === null ? response.error : `answered HTTP ${response.status}`;
  if (at.getTime() >= Date.parse(giveUpAt))
    return {
      status: 'FAILED',
      tries,
      nextTryAt: event.nextTryAt,
      giveUpAt,
      lastStatus,
      lastError,
      lastTryAt,
      deliveredAt: null,
    };
  const next = Math.min(at.getTime() + retryDelayMs(tries, delays), Date.parse(giveUpAt));
  return {
    status: 'PENDING',
    tries,
    nextTryAt: new Date(next).toISOString(),
    giveUpAt,
    lastStatus,
    lastError,
    lastTryAt,
    deliveredAt: null,
  };
}
