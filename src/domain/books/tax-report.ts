import { csvCell } from '../csv.ts';
import { invalidInput } from '../errors.ts';
import { formatMinor, toEuroMinor, type ExchangeRates } from '../money/index.ts';
import { isEuCountry, usZipRow, type UsSalesTaxTable } from '../tax/index.ts';

/** The returns a seller files (docs/decisions.md §23): EU OSS, UK VAT, US sales tax, Canada, Australia. */
export const TAX_SCHEMES = ['oss', 'uk', 'us', 'ca', 'au'] as const;
export type TaxScheme = (typeof TAX_SCHEMES)[number];

/** The ledger's sales of a period, added up per place, rate and currency (what the store groups by). */
export interface TaxGroup {
  /** The buyer's country (where the sale is consumed), and its US state or Canadian province. */
  country: string;
  region: string | null;
  taxRate: string;
  currency: string;
  reverseCharge: boolean;
  /** The business buyer's VAT ID, for reverse-charge sales only. */
  buyerVatId: string | null;
  /** The seller's country: the vendor's setting, else SELLER_COUNTRY (applied by the caller). */
  sellerCountry: string | null;
  /** A US buyer's ZIP code as given at checkout; null elsewhere or when none was given. */
  zip: string | null;
  netMinor: number;
  taxMinor: number;
  entries: number;
}

/** A row of a return. Amounts in the sales' currency; `eur` for the EU's OSS and the EC sales list. */
export interface TaxReportRow {
  scheme: TaxScheme | 'other';
  /** oss: a member state's OSS sales; domestic: the seller's own country; reverse-charge: the EC sales list. */
  section: 'oss' | 'domestic' | 'reverse-charge' | 'sales';
  /** The member state, US state, province or country the tax is owed to. */
  jurisdiction: string;
  taxRate: string;
  buyerVatId: string | null;
  /** US sales taxed at a ZIP's rate of the ZIP-level table: the ZIP and its tax region (the table's name); else null. */
  zip: string | null;
  taxRegion: string | null;
  currency: string;
  netMinor: number;
  taxMinor: number;
  entries: number;
  eur: { netMinor: number; taxMinor: number; ratesDate: string } | null;
}

/** A return's period: a quarter (2026-Q3), a month (2026-07) or a year (2026), in UTC. */
export interface TaxPeriod {
  label: string;
  /** The first moment in it and the first after it (ISO). */
  from: string;
  to: string;
  /** Its last day (YYYY-MM-DD): OSS converts at the ECB rate of that day. */
  lastDay: string;
}

export function parseTaxPeriod(text: string): TaxPeriod {
  const m = /^(\d{4})(?:-Q([1-4])|-(0[1-9]|1[0-2]))?$/.exec(text.trim());
  if (!m)
    throw invalidInput(`"${text}" is not a period: write a quarter (2026-Q3), a month (2026-07) or a year (2026).`);
  const year = Number(m[1]);
  // The first month (0-11) and how many: a quarter's three, a month, or the whole year.
  let [first, months] = [0, 12];
  if (m[2] !== undefined) [first, months] = [(Number(m[2]) - 1) * 3, 3];
  if (m[3] !== undefined) [first, months] = [Number(m[3]) - 1, 1];
  const from = new Date(Date.UTC(year, first, 1));
  const to = new Date(Date.UTC(year, first + months, 1));
  return {
    label: text.trim(),
    from: from.toISOString(),
    to: to.toISOString(),
    lastDay: new Date(to.getTime() - 86_400_000).toISOString().slice(0, 10),
  };
}

/** Which return a group of sales belongs to, and in which of its sections; 'other' when none of them. */
function placeOf(g: TaxGroup): Pick<TaxReportRow, 'scheme' | 'section' | 'jurisdiction'> {
  if (isEuCountry(g.country)) {
    if (g.reverseCharge) return { scheme: 'oss', section: 'reverse-charge', jurisdiction: g.country };
    if (g.country === g.sellerCountry) return { scheme: 'oss', section: 'domestic', jurisdiction: g.country };
    return { scheme: 'oss', section: 'oss', jurisdiction: g.country };
  }
  const national: Record<string, TaxScheme> = { GB: 'uk', US: 'us', CA: 'ca', AU: 'au' };
  const scheme = national[g.country];
  if (!scheme) return { scheme: 'other', section: 'sales', jurisdiction: g.country };
  const byRegion = scheme === 'us' || scheme === 'ca';
  return { scheme, section: 'sales', jurisdiction: byRegion ? `${g.country}-${g.region ?? '?'}` : g.country };
}

/**
 * The rows of the returns asked for (`all`: every scheme, and the sales outside them as 'other', so
 * the rows' tax adds up to the ledger's), one per section, place, rate, currency (and buyer VAT ID on
 * the EC sales list). Refunds are in the period they were made, as negative amounts. The EU's rows are
 * also in euros at `eurRates` (the ECB's of the period's last day), each converted and rounded once.
 */
export function taxReport(
  groups: readonly TaxGroup[],
  scheme: TaxScheme | 'all',
  eurRates?: ExchangeRates,
  usSalesTax?: UsSalesTaxTable,
): TaxReportRow[] {
  const rows = new Map<string, TaxReportRow>();
  for (const g of groups) {
    const place = placeOf(g);
    if (scheme !== 'all' && place.scheme !== scheme) continue;
    const buyerVatId = place.section === 'reverse-charge' ? g.buyerVatId : null;
    // Where the ZIP-level table has the buyer's ZIP, the sale is owed to that ZIP's jurisdiction too.
    const zipRow = place.scheme === 'us' ? usZipRow({ zip: g.zip, usSalesTax }) : undefined;
    const key = [place.scheme, place.section, place.jurisdiction, zipRow?.zip ?? '', g.taxRate, g.currency]
      .concat(buyerVatId ?? '')
      .join('\u0000');
    const row = rows.get(key) ?? {
      ...place,
      taxRate: g.taxRate,
      buyerVatId,
      zip: zipRow?.zip ?? null,
      taxRegion: zipRow?.regionName ?? null,
      currency: g.currency,
      netMinor: 0,
      taxMinor: 0,
      entries: 0,
      eur: null,
    };
    row.netMinor += g.netMinor;
    row.taxMinor += g.taxMinor;
    row.entries += g.entries;
    rows.set(key, row);
  }
  const order = (r: TaxReportRow) =>
    [r.scheme, r.section, r.jurisdiction, r.zip ?? '', r.taxRate, r.currency, r.buyerVatId ?? ''].join('\u0000');
  const sorted = [...rows.values()].sort((a, b) => order(a).localeCompare(order(b)));
  for (const row of sorted)
    if (row.scheme === 'oss') {
      if (!eurRates)
        throw invalidInput('The EU returns are in euros: they need the ECB rates of the period’s last day.');
      row.eur = {
        netMinor: toEuroMinor(row.netMinor, row.currency, eurRates),
        taxMinor: toEuroMinor(row.taxMinor, row.currency, eurRates),
        ratesDate: eurRates.date,
      };
    }
  return sorted;
}

/** The returns as CSV, the columns docs/decisions.md §23 names; amounts as decimals of their currency. */
export function taxReportCsv(period: TaxPeriod, rows: readonly TaxReportRow[]): string {
  const header = [
    'period',
    'scheme',
    'section',
    'jurisdiction',
    'tax_rate',
    'buyer_vat_id',
    'currency',
    'net',
    'tax',
    'entries',
    'net_eur',
    'tax_eur',
    'eur_rates_of',
    'zip',
    'tax_region',
  ];
  const lines = rows.map((r) =>
    [
      period.label,
      r.scheme,
      r.section,
      r.jurisdiction,
      r.taxRate,
      r.buyerVatId ?? '',
      r.currency,
      formatMinor(r.netMinor, r.currency),
      formatMinor(r.taxMinor, r.currency),
      String(r.entries),
      r.eur ? formatMinor(r.eur.netMinor, 'EUR') : '',
      r.eur ? formatMinor(r.eur.taxMinor, 'EUR') : '',
      r.eur?.ratesDate ?? '',
      r.zip ?? '',
      r.taxRegion ?? '',
    ].map(csvCell),
  );
  return `${[header, ...lines].map((l) => l.join(',')).join('\n')}\n`;
}
