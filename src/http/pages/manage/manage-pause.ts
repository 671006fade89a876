import type { PortalItem } from '../../../domain/portal/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';

/**
 * A subscription's pause on the management page (docs/decisions.md §41): paused (resume now), pausing at
 * the end of the paid period (keep it running), or, where the vendor lets customers pause, a pause button.
 */
export function pauseBlock(
  entry: PortalItem,
  view: { tr: Translator; formToken: string; hidden: (formToken: string, action: string, id: string) => Html },
): Html {
  const offer = entry.pause;
  if (!offer) return html``;
  const { tr } = view;
  // Resuming is the one thing to do while paused (the page's main button); pausing and keeping it running are quieter.
  const form = (action: string, label: string, id: string, quiet = true) =>
    html`<form method="post">${view.hidden(view.formToken, action, entry.transaction.id)}<button type="submit"${quiet ? html` class="link"` : ''} data-testid="${id}">${label}</button></form>`;
  const date = (iso: string | null) => (iso ? tr.date(iso) : '');
  if (offer.state === 'paused') {
    // Paused until resumed, the status line says so already; a resume date is said here.
    const until = offer.resumesAt
      ? html`<p data-testid="pause-state">${tr.t('manage.pausedUntil', { date: date(offer.startsAt), until: date(offer.resumesAt) })}</p>`
      : '';
    return html`${until}<p class="muted" data-testid="resume-hint">${tr.t('manage.resumeHint')}</p>${form('resume', tr.t('manage.resumeButton'), 'resume', false)}`;
  }
  if (offer.state === 'scheduled') {
    // Paused until resumed, the status line says when it starts; with a resume date it names the next payment.
    const starts = offer.resumesAt
      ? html`<p data-testid="pause-state">${tr.t('manage.pauseScheduled', { date: date(offer.startsAt) })}</p>`
      : '';
    return html`${starts}${form('resume', tr.t('manage.keepRunning'), 'keep-running')}`;
  }
  if (!offer.canPause) return html``;
  return html`<p class="muted">${tr.t('manage.pauseHint', { date: date(offer.startsAt) })}</p>${form('pause', tr.t('manage.pauseButton'), 'pause')}`;
}
