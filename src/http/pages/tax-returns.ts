import { TAX_SCHEMES, type TaxPeriod, type TaxReportRow } from '../../domain/books/index.ts';
import type { Environment, Vendor } from '../../domain/model.ts';
import { formatMinor } from '../../domain/money/index.ts';
import { html, type Html } from './layout.ts';

/** The words of each return and section, as the CSV's columns name them (docs/decisions.md §23). */
const SCHEME_NAMES: Record<string, string> = {
  all: 'Every return',
  oss: 'EU OSS',
  uk: 'UK VAT',
  us: 'US sales tax',
  ca: 'Canada GST/HST/QST/PST',
  au: 'Australia GST',
  other: 'Elsewhere',
};
const SECTION_NAMES: Record<TaxReportRow['section'], string> = {
  oss: 'OSS',
  domestic: 'Domestic',
  'reverse-charge': 'Reverse charge (EC sales list)',
  sales: 'Sales',
};

export interface ReportQuery {
  period: string;
  scheme: string;
  vendor: string;
}

/**
 * The form that asks for a period's returns: GET, so a report is a link to keep. The operator's console
 * (`vendors`) chooses whose sales; a vendor's panel has only its own.
 */
export function reportForm(
  query: ReportQuery,
  view: { action: string; environment: Environment; vendors?: Vendor[] | undefined },
): Html {
  return html`<form method="get" action="${view.action}" class="filters"><input type="hidden" name="env" value="${view.environment}">
  <div><label for="period">Period</label><input id="period" name="period" value="${query.period}" placeholder="2026-Q3" required aria-describedby="period-help"></div>
  <div><label for="scheme">Return</label><select id="scheme" name="scheme">${['all', ...TAX_SCHEMES].map(
    (s) => html`<option value="${s}"${s === query.scheme ? html` selected` : ''}>${SCHEME_NAMES[s]!}</option>`,
  )}</select></div>
  ${
    view.vendors
      ? html`<div><label for="vendor">Sales of</label><select id="vendor" name="vendor"><option value="">Every vendor</option>${view.vendors.map(
          (v) => html`<option value="${v.id}"${v.id === query.vendor ? html` selected` : ''}>${v.name}</option>`,
        )}</select></div>`
      : ''
  }
  <div><button type="submit">Show</button></div></form>
  <p class="muted" id="period-help">A quarter (2026-Q3), a month (2026-07) or a year (2026), in UTC.${view.vendors ? " Without a vendor: every vendor's sales, as the operator selling for them files them." : ''}</p>`;
}

/** The returns of a period as a table, with the CSV to file from. */
export function reportContent(view: { period: TaxPeriod; rows: TaxReportRow[]; csv: string }): Html {
  const { period, rows } = view;
  const amount = (minor: number, currency: string) => `${formatMinor(minor, currency)} ${currency}`;
  return html`<h2>${period.label}</h2><p><a href="${view.csv}" data-testid="tax-csv">Download as CSV</a> (the columns are named in docs/decisions.md §23)</p>
  ${
    rows.length === 0
      ? html`<p class="muted">No sales or refunds in this period.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="Tax returns of ${period.label}"><table class="grid"><thead><tr><th>Return</th><th>Owed to</th><th class="num">Rate</th><th class="num">Taxable</th><th class="num">Tax</th><th class="num hide-phone">In euros (tax)</th></tr></thead><tbody>
  ${rows.map(
    (r) =>
      html`<tr data-testid="tax-row"><td>${SCHEME_NAMES[r.scheme]!}<span class="why">${SECTION_NAMES[r.section]}${r.buyerVatId ? `, ${r.buyerVatId}` : ''}</span></td><td>${r.jurisdiction}${r.zip ? html`<span class="why">${r.zip}, ${r.taxRegion ?? ''}</span>` : ''}</td><td class="num">${r.taxRate}</td><td class="num">${amount(r.netMinor, r.currency)}</td><td class="num">${amount(r.taxMinor, r.currency)}</td><td class="num hide-phone">${r.eur ? amount(r.eur.taxMinor, 'EUR') : ''}</td></tr>`,
  )}</tbody></table></div>`
  }`;
}
