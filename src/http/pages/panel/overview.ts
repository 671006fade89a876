import type { Overview, Series } from '../../../domain/reports/index.ts';
import type { Environment } from '../../../domain/model.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import { html, type Html } from '../layout.ts';
import { panelHref } from './panel-layout.ts';

const W = 640;
const H = 180;
const PAD = { left: 8, right: 8, top: 4, bottom: 4 };

/**
 * A bar chart drawn on the server: paid per bucket upwards in blue, refunded downwards in red (the
 * figures are in the title of every bar, for screen readers and hovering). The SVG holds only the
 * bars and stretches to the width it is given; its scale and dates are HTML around it, so they stay
 * readable on a phone, where a drawing 640 wide is shown at half size.
 */
export function revenueChart(series: Series, buckets: string[], label: string, locale: string): Html {
  // Nothing to draw: a scale of "max $0.01" over an empty plot would only puzzle a new vendor.
  if (series.paid.every((v) => v === 0) && series.refunded.every((v) => v === 0))
    return html`<div class="chart-box chart-empty" data-testid="chart-${series.currency}"><p data-testid="no-sales">No sales yet in this period.</p></div>`;
  const money = (minor: number) => formatForBuyer(minor, series.currency, locale);
  const max = Math.max(1, ...series.paid, ...series.refunded);
  const plotH = H - PAD.top - PAD.bottom;
  const refundsShare = series.refundedTotal > 0 ? 0.25 : 0;
  const baseline = PAD.top + plotH * (1 - refundsShare);
  const up = plotH * (1 - refundsShare);
  const down = plotH * refundsShare;
  const step = (W - PAD.left - PAD.right) / buckets.length;
  const bar = Math.max(2, step * 0.7);
  const short = (b: string) => (b.length === 10 ? b.slice(5) : b);
  const bars = buckets.map((b, i) => {
    const x = (PAD.left + i * step + (step - bar) / 2).toFixed(1);
    const paidH = (series.paid[i]! / max) * up;
    const refundH = (series.refunded[i]! / max) * (down || up);
    const title = `${b}: paid ${money(series.paid[i]!)}${series.refunded[i] ? `, refunded ${money(series.refunded[i]!)}` : ''}`;
    return html`<g><title>${title}</title>${paidH > 0 ? html`<rect x="${x}" y="${(baseline - paidH).toFixed(1)}" width="${bar.toFixed(1)}" height="${paidH.toFixed(1)}" fill="#2550c8"></rect>` : ''}${
      refundH > 0
        ? html`<rect x="${x}" y="${baseline.toFixed(1)}" width="${bar.toFixed(1)}" height="${Math.min(refundH, down || up).toFixed(1)}" fill="#d92d20"></rect>`
        : ''
    }</g>`;
  });
  const dates = [0, Math.floor(buckets.length / 2), buckets.length - 1].map(
    (i) => html`<span>${short(buckets[i]!)}</span>`,
  );
  return html`<div class="chart-box"><p class="chart-scale muted">max ${money(max)}</p>
  <svg class="chart" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${label}" data-testid="chart-${series.currency}">
  <line x1="${PAD.left}" x2="${W - PAD.right}" y1="${baseline.toFixed(1)}" y2="${baseline.toFixed(1)}" stroke="#d9dce1" vector-effect="non-scaling-stroke"></line>
  ${bars}</svg>
  <p class="chart-dates muted">${dates}</p></div>`;
}

const card = (label: string, value: string, note: string, testid: string) =>
  html`<div class="card"><p class="muted">${label}</p><p class="big" data-testid="${testid}">${value}</p><p class="muted">${note}</p></div>`;

export function overviewContent(o: Overview, environment: Environment, locale: string): Html {
  const money = (minor: number, currency = 'USD') => formatForBuyer(minor, currency, locale);
  const period = o.unit === 'day' ? 'last 30 days' : 'last 12 months';
  const mrrOthers = Object.entries(o.mrr.byCurrency)
    .filter(([c]) => c !== 'USD')
    .map(([c, m]) => money(m, c))
    .join(', ');
  return html`<p class="inline muted">Revenue per ${o.unit === 'day' ? 'day' : 'month'}, ${period}, net of tax.
    <a href="${panelHref('/panel', environment, { by: o.unit === 'day' ? 'month' : 'day' })}" data-testid="unit-switch">Show per ${o.unit === 'day' ? 'month' : 'day'}</a>
    <a href="${panelHref('/panel/payouts', environment)}" data-testid="payouts-link">Balance and payouts</a>
    <a href="${panelHref('/panel/taxes', environment)}" data-testid="taxes-link">Tax returns</a></p>
  <div class="cards">
    ${card(`Revenue, ${period} (USD)`, money(o.usd.paidTotal - o.usd.refundedTotal), `${o.payments} payments`, 'revenue-usd')}
    ${card('MRR (USD)', money(o.mrr.usd), mrrOthers ? `from ${mrrOthers}` : 'active subscriptions', 'mrr-usd')}
    ${card('Active subscriptions', String(o.activeSubscriptions), `${o.cancellingSubscriptions} end at period end`, 'active')}
    ${card('Trials', String(o.trials), 'not yet paying', 'trials')}
    ${card('Churn, 30 days', `${(o.churnRate * 100).toFixed(1)}%`, `${o.churned30} cancelled`, 'churn')}
    ${card(`Refunds, ${period} (USD)`, money(o.usd.refundedTotal), `${o.refunds} refund${o.refunds === 1 ? '' : 's'} or chargeback${o.refunds === 1 ? '' : 's'}`, 'refunds-usd')}
  </div>
  ${usdBasis(o)}
  <h2>All currencies in USD</h2>
  <p class="legend muted"><span><i class="key paid"></i>Paid</span><span><i class="key refunded"></i>Refunded</span><span>At the rates of ${o.ratesDate}.</span>${
    o.unconverted.length ? ` Without a rate, left out: ${o.unconverted.join(', ')}.` : ''
  }</p>
  ${revenueChart(o.usd, o.buckets, `Revenue in USD per ${o.unit}`, locale)}
  ${o.currencies.map(
    (
      s,
    ) => html`<h2>${s.currency}</h2><p class="muted" data-testid="total-${s.currency}">Paid ${money(s.paidTotal, s.currency)}, refunded ${money(s.refundedTotal, s.currency)}</p>
    ${revenueChart(s, o.buckets, `Revenue in ${s.currency} per ${o.unit}`, locale)}`,
  )}`;
}

/**
 * Which rate each USD figure uses (docs/decisions.md §30): this page converts every currency at one
 * table, the server's, whatever the day of the payment; a transaction's netPriceInUSD converts nothing.
 */
function usdBasis(o: Overview): Html {
  const rates = o.usdRates.map(({ currency, usd }) => `1 ${currency} = ${usd} USD`).join(', ');
  return html`<p class="muted basis" data-testid="usd-basis">USD figures here convert other currencies at the exchange rates of ${o.ratesDate}, the same rate for every day shown${rates ? `: ${rates}` : ''}.</p>
  <p class="muted basis" data-testid="net-usd-basis">A transaction's <code>netPriceInUSD</code> (API and feed) is not converted: it is the USD net price of what was bought, after any coupon, so a sale in another currency can differ from its USD figure here.</p>`;
}
