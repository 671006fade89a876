import type { ManagedLicence } from '../../../domain/catalog/index.ts';
import type { Environment } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';

/** The words of a key's state, for the vendor. */
function stateText(licence: ManagedLicence): string {
  if (licence.revokedAt) return `Revoked on ${licence.revokedAt.slice(0, 10)}: the key no longer works`;
  return licence.status === 'ACTIVE' ? 'Active' : 'Inactive: the purchase is no longer paid up';
}

const used = (l: ManagedLicence) =>
  l.activationLimit === null ? `${l.activationsUsed} (no limit)` : `${l.activationsUsed} of ${l.activationLimit}`;

/**
 * A purchase's licence key on its panel page (docs/decisions.md §40): its state, where it is activated
 * (each instance can be freed), and revoke and reissue, each a POST form with the session's CSRF token.
 */
export function licenceSection(
  environment: Environment,
  csrf: string,
  transactionId: string,
  licence: ManagedLicence | undefined,
): Html {
  if (!licence) return html``;
  const action = (what: string) => panelHref(`/panel/transactions/${transactionId}/licence/${what}`, environment);
  const rows = licence.instances.map(
    (
      i,
    ) => html`<tr data-testid="instance"><td>${i.instanceName}</td><td class="when hide-phone">${i.activatedAt.slice(0, 16).replace('T', ' ')}</td>
      <td><form method="post" action="${action('deactivate')}">${csrfField(csrf)}<input type="hidden" name="instanceId" value="${i.instanceId}"><button type="submit" class="outline" aria-label="Deactivate ${i.instanceName}" data-testid="deactivate-instance">Deactivate</button></form></td></tr>`,
  );
  return html`<h2 id="licence-heading">Licence key</h2>
  <p data-testid="licence-state">${stateText(licence)} · activations in use: ${used(licence)}</p>
  ${
    rows.length
      ? html`<div class="scroll"><table class="grid" aria-labelledby="licence-heading"><thead><tr><th>Instance</th><th class="hide-phone">Activated (UTC)</th><th>Slot</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p class="muted">Not activated anywhere yet.</p>`
  }
  <p class="muted">Revoke: the key stops working; the purchase is untouched. Reissue: a new key replaces it (the customer is e-mailed it when e-mails are on); the old key stops working and its activations are dropped.</p>
  <div class="inline">
    ${licence.revokedAt ? '' : html`<form method="post" action="${action('revoke')}">${csrfField(csrf)}<button type="submit" class="outline" data-testid="revoke-licence">Revoke key</button></form>`}
    <form method="post" action="${action('reissue')}">${csrfField(csrf)}<button type="submit" class="outline" data-testid="reissue-licence">Reissue key</button></form>
  </div>`;
}
