import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { StoredWebhookEndpoint, WebhookEvent } from '../ports.ts';
import { checkEndpointUrl, privateAllowed } from './address-guard.ts';
import { openSecret } from './endpoint-secrets.ts';
import { eventBody } from './event-body.ts';
import type { WebhookContext } from './webhook-context.ts';
import { DISABLE_AFTER_MS, type WebhookReport, type WebhookResponse } from './webhook-model.ts';
import { afterTry, delivered } from './webhook-retry.ts';

const COUNTED = { DELIVERED: 'delivered', PENDING: 'retried', FAILED: 'failed' } as const;

/**
 * One try of an event: signed per Standard Webhooks at the moment of sending (`webhook-id` is the
 * event's id on every try, so a receiver recognises a second delivery), sent within the time limit
 * to the address the guard let through, its outcome recorded by the lease's holder.
 */
export async function tryEvent(
  ctx: WebhookContext,
  event: WebhookEvent,
  endpoint: StoredWebhookEndpoint,
): Promise<{ response: WebhookResponse; at: Date }> {
  const { deps } = ctx;
  const allowPrivate = privateAllowed(endpoint.scope.environment, deps.allowPrivate);
  const url = checkEndpointUrl(endpoint.url, endpoint.scope.environment, allowPrivate, deps.allowPrivate);
  if (typeof url === 'string') return { response: { status: null, error: url }, at: deps.clock.real() };
  let secret: string;
  try {
    secret = openSecret(endpoint.sealedSecret, deps.serverSecret);
  } catch {
    const error = "the endpoint's secret cannot be read (was OPENTILL_SECRET changed?): remove it and add it again";
    return { response: { status: null, error }, at: deps.clock.real() };
  }
  const body = eventBody(event, deps.present);
  // The receiver checks the timestamp against its own clock: the machine's time, whatever the domain's clock says.
  const sentAt = new Date();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'opentill-webhooks',
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(event.id, sentAt, body),
  };
  const response = await deps.transport.post({
    url: url.href,
    headers,
    body,
    timeoutMs: ctx.timeoutMs,
    allowPrivate,
    allowLinkLocal: deps.allowPrivate,
  });
  return { response, at: deps.clock.real() };
}

/** Tries a claimed event and records what came of it, for the event and for its endpoint. */
async function deliver(
  ctx: WebhookContext,
  event: WebhookEvent,
  owner: string,
  endpoints: Map<string, Promise<StoredWebhookEndpoint | undefined>>,
  report: WebhookReport,
): Promise<void> {
  const { store } = ctx.deps;
  let endpoint = endpoints.get(event.endpointId);
  if (!endpoint) endpoints.set(event.endpointId, (endpoint = store.webhooks.endpoint(event.endpointId)));
  const found = await endpoint;
  if (!found?.enabled) return store.webhooks.release([event.id], owner);
  const { response, at } = await tryEvent(ctx, event, found);
  const outcome = afterTry(event, response, at, ctx.retryDelaysMs);
  if (!(await store.webhooks.settle(event.id, owner, outcome))) return;
  report[COUNTED[outcome.status]]++;
  const failingSince = await store.webhooks.recordTry(found.id, delivered(response), outcome.lastTryAt!);
  if (failingSince !== null && at.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS) {
    const reason = `Every try failed for 3 days (since ${failingSince}); the last: ${outcome.lastError}.`;
    if (await store.webhooks.disableEndpoint(found.id, at.toISOString(), reason)) {
      report.disabled++;
      endpoints.delete(found.id);
      await ctx.deps.notifyDisabled?.({
        ...found,
        enabled: false,
        disabledAt: at.toISOString(),
        disabledReason: reason,
      });
    }
  }
}

/**
 * Sends what is due, a claimed batch at a time (`concurrency` tries at once), until nothing is due,
 * `budgetMs` passed or `stopping` says so. A worker past half its lease leaves the rest of its batch
 * to the next run. Safe to run in several workers at once; a worker killed mid-try leaves its events
 * to be tried again when their lease ends (at least once, never out of order: docs/decisions.md §27).
 */
export async function runDueWebhooks(
  ctx: WebhookContext,
  budgetMs: number,
  stopping: () => boolean,
): Promise<WebhookReport> {
  const report: WebhookReport = { delivered: 0, retried: 0, failed: 0, disabled: 0, more: false };
  const started = Date.now();
  const endpoints = new Map<string, Promise<StoredWebhookEndpoint | undefined>>();
  for (;;) {
    const owner = randomBytes(12).toString('base64url');
    const now = ctx.deps.clock.real();
    const claimedAt = Date.now();
    const batch = await ctx.deps.store.webhooks.claim({
      now: now.toISOString(),
      owner,
      leaseUntil: new Date(now.getTime() + ctx.leaseMs).toISOString(),
      limit: ctx.batchSize,
    });
    let next = 0;
    const freedBefore = report.delivered + report.failed;
    const lane = async () => {
      while (next < batch.length && Date.now() - claimedAt <= ctx.leaseMs / 2 && !stopping())
        await deliver(ctx, batch[next++]!, owner, endpoints, report);
    };
    try {
      await Promise.all(Array.from({ length: Math.min(ctx.concurrency, batch.length) }, lane));
    } finally {
      // What was left untried goes back at once, not after its lease.
      await ctx.deps.store.webhooks.release(
        batch.slice(next).map((e) => e.id),
        owner,
      );
    }
    // A full batch may have left more due, and an event delivered or given up may free the next of its
    // transaction: claim again until a batch is neither.
    if (batch.length < ctx.batchSize && report.delivered + report.failed === freedBefore) return report;
    if (Date.now() - started > budgetMs || stopping()) return { ...report, more: true };
  }
}
