import type { Environment } from '../../../domain/model.ts';
import type { StoredCredential, WebhookEndpoint } from '../../../domain/ports.ts';
import { html, type Html } from '../layout.ts';
import { csrfField } from './panel-layout.ts';
import { webhookEndpointsContent } from './webhooks.ts';

export function developersContent(view: {
  environment: Environment;
  csrf: string;
  apiBase: string;
  vendorId: string;
  credentials: Omit<StoredCredential, 'secretHash'>[];
  /** The new credential, shown once: from the one-time flash after the redirect. */
  issued?: string | undefined;
  webhooks: { endpoints: readonly WebhookEndpoint[]; secret?: string | undefined };
}): Html {
  const env = view.environment;
  return html`<p class="muted">API base URL: <code id="api-base" data-testid="api-base">${view.apiBase}/v1</code> <button type="button" class="link" data-copy="api-base">Copy</button></p>
  <p class="muted">The ${env} credentials below work there only; send one as the header <code>Authorization: LOGIN:PASSWORD</code>.</p>
  ${
    view.issued
      ? html`<div class="alert ok" role="status" data-testid="issued"><p>Your new credential. Copy it now: it is shown only once.</p>
    <p><code id="new-credential" data-testid="authorization">${view.issued}</code> <button type="button" class="link" data-copy="new-credential">Copy</button></p></div>`
      : ''
  }
  <h2>Credentials</h2>
  ${
    view.credentials.length
      ? html`<table class="list" aria-label="Credentials">${view.credentials.map(
          (
            c,
          ) => html`<tr data-testid="credential"><td><code>${c.login}</code><br><span class="muted">created ${c.createdAt.slice(0, 10)}${c.revokedAt ? `, revoked ${c.revokedAt.slice(0, 10)}` : ''}</span></td>
    <td>${c.revokedAt ? '' : html`<form method="post" action="/panel/credentials?env=${env}">${csrfField(view.csrf)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="id" value="${c.id}"><button type="submit" class="link">Revoke</button></form>`}</td></tr>`,
        )}</table>`
      : html`<p class="muted">No ${env} credentials yet.</p>`
  }
  <form method="post" action="/panel/credentials?env=${env}" class="narrow">${csrfField(view.csrf)}<input type="hidden" name="action" value="create"><button type="submit" data-testid="new-credential">Create a ${env} credential</button></form>
  ${webhookEndpointsContent({ environment: env, csrf: view.csrf, ...view.webhooks })}
  <h2>Admin tool</h2>
  <p class="muted">The admin tool is the page you can embed in your own back office (docs: section 18).</p>
  <form method="post" action="/panel/transactions?env=${env}" class="narrow">${csrfField(view.csrf)}<button type="submit" data-testid="transactions">Open the ${env} admin tool</button></form>`;
}
