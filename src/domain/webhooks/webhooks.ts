import type { Scope } from '../model.ts';
import type { WebhookEndpoint, WebhookEvent } from '../ports.ts';
import { eventBody } from './event-body.ts';
import { addEndpoint, enableEndpoint, removeEndpoint, replayEvent, testEndpoint } from './endpoints.ts';
import { runDueWebhooks } from './send-due-webhooks.ts';
import type { WebhookContext, WebhookDeps, WebhookOptions } from './webhook-context.ts';
import { ATTEMPT_TIMEOUT_MS, type WebhookReport } from './webhook-model.ts';

/**
 * Outbound webhooks (docs/decisions.md §27): a vendor's endpoints per environment, and the outbox the
 * store writes in the database transaction of each change of the feed, sent by the worker signed,
 * in order per transaction, retried for 3 days. The feed itself is untouched: marking a change
 * processed has nothing to do with its delivery.
 */
export function webhookService(deps: WebhookDeps, options: WebhookOptions = {}) {
  const ctx: WebhookContext = {
    deps,
    leaseMs: options.leaseMs ?? 60_000,
    batchSize: options.batchSize ?? 64,
    concurrency: options.concurrency ?? 16,
    timeoutMs: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    retryDelaysMs: options.retryDelaysMs,
  };
  return {
    add: (scope: Scope, url: string) => addEndpoint(ctx, scope, url),
    list: (scope: Scope): Promise<WebhookEndpoint[]> => deps.store.webhooks.endpoints(scope),
    remove: (scope: Scope, id: string) => removeEndpoint(ctx, scope, id),
    enable: (scope: Scope, id: string) => enableEndpoint(ctx, scope, id),
    test: (scope: Scope, id: string) => testEndpoint(ctx, scope, id),
    /** The scope's latest events, newest first, each with the body it sends. */
    async log(scope: Scope, q: { limit: number; endpointId?: string | undefined }) {
      const events = await deps.store.webhooks.log(scope, q);
      return events.map((event) => ({ ...event, body: eventBody(event, deps.present) }));
    },
    replay: (scope: Scope, id: string) => replayEvent(ctx, scope, id),
    /** Forgets delivered and given-up events once their log is 30 days old (the server does it hourly). */
    purgeOld: (): Promise<number> =>
      deps.store.webhooks.purgeSettled(new Date(deps.clock.real().getTime() - KEEP_LOG_MS).toISOString()),
    /** Sends what is due (the worker's loop); `budgetMs` bounds a run, `stopping` ends it early. */
    runDue: (budgetMs = Infinity, stopping: () => boolean = () => false): Promise<WebhookReport> =>
      runDueWebhooks(ctx, budgetMs, stopping),
  };
}

/** How long the delivery log keeps a settled event (docs/decisions.md §27). */
export const KEEP_LOG_MS = 30 * 24 * 60 * 60 * 1000;

export type WebhookService = ReturnType<typeof webhookService>;
export type LoggedWebhookEvent = WebhookEvent & { body: string };
