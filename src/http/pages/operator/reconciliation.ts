import type { ReconciliationReport } from '../../../domain/books/index.ts';
import type { Environment } from '../../../domain/model.ts';
import { formatMinor } from '../../../domain/money/index.ts';
import { html, type Html } from '../layout.ts';

const amount = (minor: number, currency: string) => `${formatMinor(minor, currency)} ${currency}`;
const table = (label: string, head: Html, rows: Html[]) =>
  html`<div class="scroll" tabindex="0" role="region" aria-label="${label}"><table class="grid"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;

/** Whether a payout is what its items sum to, as far as Stripe says. */
function againstItems(p: ReconciliationReport['payouts'][number]): Html | string {
  if (p.differenceMinor === null) return 'not said by Stripe';
  if (p.differenceMinor === 0) return 'agrees';
  return html`<span class="st bad">off by ${amount(p.differenceMinor, p.currency)}</span>`;
}

/** The form that asks for a period: GET, so a reconciliation is a link the operator can keep or run again. */
export function reconciliationForm(query: { from: string; to: string }, environment: Environment): Html {
  return html`<form method="get" action="/operator/reconciliation" class="filters"><input type="hidden" name="env" value="${environment}">
  <div><label for="from">First day</label><input id="from" name="from" type="date" value="${query.from}" required></div>
  <div><label for="to">Last day</label><input id="to" name="to" type="date" value="${query.to}" required></div>
  <div><button type="submit">Reconcile</button></div></form>
  <p class="muted">Stripe's balance transactions and payouts of those days (UTC) against the ledger, matched by Stripe's ids: charges, refunds, disputes, fees and payouts (<code>opentill reconcile stripe</code> does the same).</p>`;
}

/** What the reconciliation found: a summary, then each kind of difference, then the payouts. */
export function reconciliationContent(r: ReconciliationReport): Html {
  const summary =
    r.differences === 0
      ? html`<div class="alert ok" role="status" data-testid="agree">The books agree: ${String(r.matched)} of Stripe's items match the ledger.</div>`
      : html`<div class="alert bad" role="status" data-testid="differ">${String(r.differences)} difference${r.differences === 1 ? '' : 's'}; ${String(r.matched)} ${r.matched === 1 ? 'item matches' : 'items match'}.</div>`;
  return html`<h2>${r.period.from} to ${r.period.to}</h2>${summary}
  ${
    r.missingInLedger.length
      ? html`<h3>At Stripe, not in the ledger</h3>${table(
          'At Stripe, not in the ledger',
          html`<th>Stripe</th><th>Kind</th><th>When</th><th class="num">Amount</th>`,
          r.missingInLedger.map(
            (i) =>
              html`<tr data-testid="missing-in-ledger"><td><code>${i.reference}</code><span class="why">${i.id}</span></td><td>${i.label}</td><td>${i.createdAt.slice(0, 16).replace('T', ' ')}</td><td class="num">${amount(i.amountMinor, i.currency)}</td></tr>`,
          ),
        )}`
      : ''
  }
  ${
    r.missingAtProcessor.length
      ? html`<h3>In the ledger, not at Stripe</h3>${table(
          'In the ledger, not at Stripe',
          html`<th>Reference</th><th>Entry</th><th>When</th><th class="num">Amount</th>`,
          r.missingAtProcessor.map(
            (e) =>
              html`<tr data-testid="missing-at-processor"><td><code>${e.reference}</code></td><td>${e.type}<span class="why">${e.entryId}</span></td><td>${e.createdAt.slice(0, 16).replace('T', ' ')}</td><td class="num">${amount(e.amountMinor, e.currency)}</td></tr>`,
          ),
        )}`
      : ''
  }
  ${
    r.amountsDiffer.length
      ? html`<h3>Amounts that differ</h3>${table(
          'Amounts that differ',
          html`<th>Reference</th><th>What</th><th class="num">Stripe</th><th class="num">Ledger</th>`,
          r.amountsDiffer.map(
            (d) =>
              html`<tr data-testid="amount-differs"><td><code>${d.reference}</code><span class="why">${d.entryId}</span></td><td>${d.kind}, ${d.field}</td><td class="num">${amount(d.processor.amountMinor, d.processor.currency)}</td><td class="num">${amount(d.ledger.amountMinor, d.ledger.currency)}</td></tr>`,
          ),
        )}`
      : ''
  }
  <h3>Payouts</h3>${
    r.payouts.length
      ? table(
          'Payouts',
          html`<th>Payout</th><th class="hide-phone">Arrives</th><th class="num">Amount</th><th class="num">Against its items</th>`,
          r.payouts.map(
            (p) =>
              html`<tr data-testid="payout"><td><code>${p.id}</code><span class="why">${p.status}</span></td><td class="hide-phone">${p.arrivalDate}</td><td class="num">${amount(p.amountMinor, p.currency)}</td><td class="num">${againstItems(p)}</td></tr>`,
          ),
        )
      : html`<p class="muted">No payouts in these days.</p>`
  }
  ${r.unbookedFees.length ? html`<p class="muted">Dispute fees Stripe took, which the ledger keeps no entry of (docs/decisions.md §21): ${r.unbookedFees.map((f) => `${amount(f.feeMinor, f.currency)} (${f.items})`).join(', ')}.</p>` : ''}
  ${r.otherItems.length ? html`<p class="muted">${String(r.otherItems.length)} other Stripe item${r.otherItems.length === 1 ? '' : 's'} (its own fees, transfers, top-ups) are not the ledger's to match.</p>` : ''}`;
}
