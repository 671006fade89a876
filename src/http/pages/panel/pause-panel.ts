import { pauseStateOf } from '../../../domain/billing/index.ts';
import type { Environment, Transaction } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';
import type { PanelRouting } from './panel-routing.ts';
import { transactionActRefused } from './transaction-act-refused.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/**
 * A subscription's pause on its panel page (docs/decisions.md §41): what it is (scheduled, in effect),
 * and the one thing the vendor can do about it now: pause (until a date, or until resumed), resume, or
 * call off a pause not in effect yet. Nothing for what cannot be paused (a trial, a failing renewal).
 */
export function pauseSection(environment: Environment, csrf: string, t: Transaction, now: Date): Html {
  if (t.type !== 'SUBSCRIPTION') return html``;
  const action = (what: string) => panelHref(`/panel/transactions/${t.id}/${what}`, environment);
  const state = pauseStateOf(t, now);
  const until = (resumesAt: string | null) => (resumesAt ? `until ${day(resumesAt)} UTC` : 'until you resume it');
  const resume = (label: string, id: string) =>
    html`<div class="inline"><form method="post" action="${action('resume')}">${csrfField(csrf)}<button type="submit" class="outline" data-testid="${id}">${label}</button></form></div>`;
  if (state === 'paused')
    return html`<h2>Pause</h2><p data-testid="pause-state">Paused since ${day(t.pause!.startsAt)} UTC, ${until(t.pause!.resumesAt)}. Nothing is charged meanwhile.</p>
    <p class="muted">Resuming starts a new period now, charged now.</p>${resume('Resume now', 'resume')}`;
  if (state === 'scheduled')
    return html`<h2>Pause</h2><p data-testid="pause-state">Pauses at the end of the paid period, ${day(t.pause!.startsAt)} UTC, ${until(t.pause!.resumesAt)}.</p>
    ${resume('Call off the pause', 'call-off-pause')}`;
  if (
    t.status !== 'SUBSCRIPTION_STATUS_ACTIVE' ||
    (t.billing?.failedAttempts ?? 0) > 0 ||
    !t.nextCharge ||
    Date.parse(t.nextCharge) <= now.getTime()
  )
    return html``;
  return html`<h2>Pause</h2>
  <form method="post" action="${action('pause')}" class="narrow">${csrfField(csrf)}
    <p class="muted">The pause starts when the paid period ends (${day(t.nextCharge)} UTC); nothing is charged while it lasts. On resuming, a new period starts and is charged.</p>
    <label for="resumeOn">Resume on (optional; 00:00 UTC that day)</label><input id="resumeOn" name="resumeOn" type="date">
    <div class="inline"><button type="submit" class="outline" data-testid="pause">Pause the subscription</button></div></form>`;
}

/** A date typed in the form is 00:00 UTC that day; anything else typed goes to the domain, which refuses what is no date. */
function resumeAtOf(typed: string | undefined): string | null {
  const value = (typed ?? '').trim();
  if (value === '') return null;
  return DATE.test(value) ? `${value}T00:00:00Z` : value;
}

/** The panel's pause and resume forms: each lands back on the transaction with its notice; sent twice, nothing more changes. */
export function registerPauseActions(routing: PanelRouting) {
  const { services, action } = routing;
  for (const act of ['pause', 'resume'] as const) {
    action(
      `/panel/transactions/:id/${act}`,
      transactionActRefused(routing, 'Pause'),
      async (_session, scope, form, reply, request) => {
        const id = (request.params as { id: string }).id;
        const { transaction } =
          act === 'pause'
            ? await services.transactions.pauses.pause(scope, id, resumeAtOf(form.resumeOn))
            : await services.transactions.pauses.resume(scope, id);
        let done = 'paused';
        if (act === 'resume') done = transaction.pause ? 'resumed' : 'pause-called-off';
        return reply.redirect(panelHref(`/panel/transactions/${id}`, scope.environment, { done }), 303);
      },
    );
  }
}
