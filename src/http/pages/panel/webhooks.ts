import type { Environment } from '../../../domain/model.ts';
import type { WebhookEndpoint } from '../../../domain/ports.ts';
import { EVENT_TYPES, type LoggedWebhookEvent } from '../../../domain/webhooks/index.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';

/** The Developers page's webhook section and the delivery log (docs/decisions.md §27). */

const when = (at: string | null) => (at ? at.replace('T', ' ').slice(0, 16) : '');

const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;

/** A button that posts one action about one endpoint or event. */
const postButton = (env: Environment, csrf: string, action: string, id: string, label: string) =>
  html`<form method="post" action="/panel/webhooks?env=${env}" class="inline">${csrfField(csrf)}${hidden('action', action)}${hidden('id', id)}<button type="submit" class="link" data-testid="${action}">${label}</button></form>`;

function endpointState(e: WebhookEndpoint): Html {
  if (e.enabled)
    return e.failingSince
      ? html`<span class="st warn">Failing</span><span class="why">Every try since ${when(e.failingSince)} failed; disabled after 3 days.</span>`
      : html`<span class="st good">Enabled</span>`;
  return html`<span class="st bad" data-testid="disabled">Disabled</span><span class="why">${when(e.disabledAt)}: ${e.disabledReason ?? ''}</span>`;
}

/** The endpoints of the environment, the form to add one, and the secret of the one just added (shown once). */
export function webhookEndpointsContent(view: {
  environment: Environment;
  csrf: string;
  endpoints: readonly WebhookEndpoint[];
  secret?: string | undefined;
}): Html {
  const env = view.environment;
  return html`<h2 id="webhooks">Webhooks</h2>
  <p class="muted">Every change of the feed, POSTed to your endpoints and signed per Standard Webhooks (verify with the <code>standardwebhooks</code> library and the endpoint's secret). ${env === 'production' ? 'Production endpoints must be https:// and public.' : 'Sandbox endpoints may be http:// and local (http://localhost:3001/hooks).'}</p>
  ${
    view.secret
      ? html`<div class="alert ok" role="status" data-testid="webhook-secret"><p>The endpoint's signing secret. Copy it now: it is shown only once.</p>
    <p><code id="new-webhook-secret">${view.secret}</code> <button type="button" class="link" data-copy="new-webhook-secret">Copy</button></p></div>`
      : ''
  }
  ${
    view.endpoints.length
      ? html`<div class="scroll"><table class="grid sent-emails" aria-label="Webhook endpoints"><thead><tr><th>Endpoint</th><th>Status</th></tr></thead><tbody>${view.endpoints.map(
          (e) =>
            html`<tr data-testid="endpoint"${e.enabled ? '' : html` class="failed"`}><td><code>${e.url}</code><span class="at">${e.id}, added ${when(e.createdAt)}</span>
    ${e.enabled ? '' : postButton(env, view.csrf, 'enable', e.id, 'Enable again')} ${postButton(env, view.csrf, 'test', e.id, 'Send a test event')} ${postButton(env, view.csrf, 'remove', e.id, 'Remove')}</td><td>${endpointState(e)}</td></tr>`,
        )}</tbody></table></div>`
      : html`<p class="muted">No ${env} webhook endpoints.</p>`
  }
  <form method="post" action="/panel/webhooks?env=${env}" class="narrow">${csrfField(view.csrf)}${hidden('action', 'add')}
  <label>Endpoint URL <input type="url" name="url" required maxlength="2000" placeholder="${env === 'production' ? 'https://example.com/webhooks' : 'http://localhost:3001/hooks'}"></label>
  <button type="submit" data-testid="add-endpoint">Add a ${env} endpoint</button></form>
  <p><a href="${panelHref('/panel/webhooks', env)}" data-testid="delivery-log">The delivery log</a></p>`;
}

function eventState(e: LoggedWebhookEvent): Html {
  const answer = e.lastStatus !== null ? `HTTP ${e.lastStatus}` : (e.lastError ?? '');
  if (e.status === 'DELIVERED')
    return html`<span class="st good">Delivered</span><span class="why">${when(e.deliveredAt)}, ${answer}</span>`;
  if (e.status === 'FAILED')
    return html`<span class="st bad">Given up</span><span class="why">${e.lastError ?? ''}</span>`;
  if (e.tries === 0) return html`<span class="st">Waiting to be sent</span>`;
  return html`<span class="st warn">Waiting to retry</span><span class="why">${e.lastError ?? ''}; next try ${when(e.nextTryAt)}.</span>`;
}

/** The delivery log: the latest events, each with its outcome, its body, and a replay. */
export function webhookLogContent(view: {
  environment: Environment;
  csrf: string;
  events: readonly LoggedWebhookEvent[];
  endpoints: readonly WebhookEndpoint[];
}): Html {
  const env = view.environment;
  const urlOf = new Map(view.endpoints.map((e) => [e.id, e.url]));
  return html`<p><a href="${panelHref('/panel/developers', env)}#webhooks">Back to the endpoints</a></p>
  ${
    view.events.length === 0
      ? html`<p class="muted" data-testid="no-events">No ${env} webhook events yet.</p>`
      : html`<div class="scroll"><table class="grid sent-emails" aria-label="Webhook deliveries"><thead><tr><th>Event</th><th>Status</th><th class="hide-phone">Endpoint</th></tr></thead><tbody>${view.events.map(
          (e) =>
            html`<tr data-testid="event" data-status="${e.status}"${e.status === 'FAILED' ? html` class="failed"` : ''}><td>${EVENT_TYPES[e.kind]}<span class="at">${when(e.createdAt)}, ${e.tries === 1 ? '1 try' : `${e.tries} tries`}</span>${
              e.transactionId
                ? html`<a href="${panelHref(`/panel/transactions/${e.transactionId}`, env)}"><code>${e.transactionId}</code></a>`
                : ''
            }<details><summary>Body (<code>${e.id}</code>)</summary><pre class="email-text">${e.body}</pre></details></td>
    <td>${eventState(e)}${e.status !== 'PENDING' && e.kind !== 'TEST' ? postButton(env, view.csrf, 'replay', e.id, 'Replay') : ''}</td><td class="hide-phone"><code>${urlOf.get(e.endpointId) ?? 'removed'}</code></td></tr>`,
        )}</tbody></table></div>`
  }`;
}
