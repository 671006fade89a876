import type { Environment, Vendor } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { csrfField } from './panel-layout.ts';

export function settingsContent(view: { environment: Environment; csrf: string; vendor: Vendor }): Html {
  const env = view.environment;
  return html`<form method="post" action="/panel/settings?env=${env}" class="narrow">${csrfField(view.csrf)}
    <label class="check"><input type="checkbox" name="allowConversion" value="yes"${view.vendor.allowConversion ? html` checked` : ''}> Customers may pay in their own currency, converted from USD</label>
    <label for="origins">Sites that may frame the admin tool (origins, comma-separated)</label><input id="origins" name="adminFrameOrigins" value="${view.vendor.adminFrameOrigins.join(', ')}" placeholder="https://admin.example.com">
    <button type="submit">Save the settings</button></form>
  <h2>Admin tool sessions</h2>
  <form method="post" action="/panel/admin-sessions?env=${env}" class="narrow">${csrfField(view.csrf)}
    <p class="muted">The admin tool stays open up to 8 hours in each browser that opened it. This ends every ${env} admin tool session now, yours too.</p>
    <button type="submit" class="secondary" data-testid="revoke-admin-sessions">End all ${env} admin tool sessions</button></form>`;
}
