import { invalidInput, notFound } from '../errors.ts';
import type { Scope } from '../model.ts';
import type { WebhookEndpoint, WebhookEvent } from '../ports.ts';
import { checkEndpointUrl, isPublicAddress, privateAllowed } from './address-guard.ts';
import { newSigningSecret, sealSecret } from './endpoint-secrets.ts';
import type { WebhookContext } from './webhook-context.ts';
import { webhookId } from './webhook-model.ts';
import { afterTry } from './webhook-retry.ts';
import { tryEvent } from './send-due-webhooks.ts';

/** An endpoint's URL checked as the SSRF guard wants it, its host resolved now (and again at every try). */
async function checkedUrl(ctx: WebhookContext, scope: Scope, text: string): Promise<string> {
  const allowPrivate = privateAllowed(scope.environment, ctx.deps.allowPrivate);
  const url = checkEndpointUrl(text, scope.environment, allowPrivate, ctx.deps.allowPrivate);
  if (typeof url === 'string') throw invalidInput(url);
  if (!allowPrivate) {
    let addresses: string[];
    try {
      addresses = await ctx.deps.transport.resolve(url.hostname);
    } catch {
      throw invalidInput(`${url.hostname} does not resolve to an address.`);
    }
    const hidden = addresses.find((address) => !isPublicAddress(address));
    if (addresses.length === 0 || hidden !== undefined)
      throw invalidInput(
        `${url.hostname} resolves to ${hidden ?? 'no address'}, which is not public: production endpoints must be reachable on the internet.`,
      );
  }
  return url.href;
}

/** Adds an endpoint; its signing secret is in the answer, and never again. */
export async function addEndpoint(
  ctx: WebhookContext,
  scope: Scope,
  text: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  if (!(await ctx.deps.store.vendors.find(scope.vendorId))) throw notFound('The vendor');
  const url = await checkedUrl(ctx, scope, text);
  const secret = newSigningSecret();
  const at = ctx.deps.clock.real();
  const endpoint: WebhookEndpoint = {
    id: webhookId('we_', at.getTime()),
    scope,
    url,
    enabled: true,
    failingSince: null,
    disabledAt: null,
    disabledReason: null,
    createdAt: at.toISOString(),
  };
  await ctx.deps.store.webhooks.addEndpoint({ ...endpoint, sealedSecret: sealSecret(secret, ctx.deps.serverSecret) });
  return { endpoint, secret };
}

export async function removeEndpoint(ctx: WebhookContext, scope: Scope, id: string): Promise<void> {
  const at = ctx.deps.clock.real().toISOString();
  if (!(await ctx.deps.store.webhooks.removeEndpoint(scope, id, at, 'The endpoint was removed.')))
    throw notFound('The webhook endpoint');
}

/** Enables a disabled endpoint again: the events that waited for it go out, in order. */
export async function enableEndpoint(ctx: WebhookContext, scope: Scope, id: string): Promise<void> {
  if (!(await ctx.deps.store.webhooks.enableEndpoint(scope, id))) throw notFound('A disabled webhook endpoint');
}

/**
 * Sends a `webhook.test` event to the endpoint now, signed as every event, and keeps it in the log
 * with its outcome (it is not retried).
 */
export async function testEndpoint(ctx: WebhookContext, scope: Scope, id: string): Promise<WebhookEvent> {
  const endpoint = await ctx.deps.store.webhooks.endpoint(id);
  if (!endpoint || endpoint.scope.vendorId !== scope.vendorId || endpoint.scope.environment !== scope.environment)
    throw notFound('The webhook endpoint');
  const at = ctx.deps.clock.real();
  const event: WebhookEvent = {
    id: webhookId('evt_', at.getTime()),
    endpointId: endpoint.id,
    scope,
    transactionId: null,
    seq: 0,
    kind: 'TEST',
    payload: JSON.stringify({ message: 'A test event from opentill: this endpoint is reachable and verifies.' }),
    status: 'PENDING',
    tries: 0,
    nextTryAt: at.toISOString(),
    giveUpAt: at.toISOString(),
    lastStatus: null,
    lastError: null,
    lastTryAt: null,
    createdAt: at.toISOString(),
    deliveredAt: null,
  };
  const { response, at: triedAt } = await tryEvent(ctx, event, endpoint);
  // Its give-up time is now: a failed test is failed, not retried.
  const tried = { ...event, ...afterTry(event, response, triedAt) };
  await ctx.deps.store.webhooks.insertEvents([tried]);
  return tried;
}

/** Puts an event back in the outbox to be sent again (the panel's replay). */
export async function replayEvent(ctx: WebhookContext, scope: Scope, id: string): Promise<void> {
  const event = await ctx.deps.store.webhooks.find(scope, id);
  if (!event) throw notFound('The webhook event');
  if (event.kind === 'TEST') throw invalidInput('A test event is not replayed: send another test.');
  await ctx.deps.store.webhooks.replay(scope, id, ctx.deps.clock.real().toISOString());
}
