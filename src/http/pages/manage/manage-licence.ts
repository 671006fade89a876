import type { PortalItem } from '../../../domain/portal/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';

/**
 * Where the purchase's licence key is activated (docs/decisions.md §40): how many of the limit are in
 * use, and each instance with a form that frees it (the page's form token, as every form here).
 */
export function licenceInstances(
  entry: PortalItem,
  view: { tr: Translator; formToken: string; hidden: (formToken: string, action: string, id: string) => Html },
): Html {
  const use = entry.licenceUse;
  if (!use) return html``;
  const { tr } = view;
  const count =
    use.limit === null
      ? tr.t('manage.licenceInUse', { used: String(use.used) })
      : tr.t('manage.licenceInUseOf', { used: String(use.used), limit: String(use.limit) });
  const items = use.instances.map(
    (
      i,
    ) => html`<li data-testid="instance"><bdi dir="auto">${i.name}</bdi> <bdi class="muted">${tr.t('manage.activatedSince', { date: tr.date(i.activatedAt, 'medium') })}</bdi>
      <form method="post">${view.hidden(view.formToken, 'free-instance', entry.transaction.id)}<input type="hidden" name="instanceId" value="${i.id}"><button type="submit" class="link" data-testid="free-instance">${tr.t('manage.freeInstance', { name: i.name })}</button></form></li>`,
  );
  return html`<p class="muted" data-testid="licence-use">${count}</p>${items.length ? html`<ul class="instances" aria-label="${count}">${items}</ul>` : ''}`;
}
