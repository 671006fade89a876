import { createRequire } from 'node:module';
import countryToCurrency from 'country-to-currency';
import { invalidInput } from '../errors.ts';
import { formatDecimal, parseDecimal, type Decimal } from '../money/index.ts';

/**
 * Sales tax by country, and by state or province where it differs, from the dataset the
 * `sales-tax` package maintains (res/sales_tax_rates.json). Nothing here types a rate by hand.
 */
interface RateRecord {
  type: string;
  currency?: string;
  rate: number;
  states?: Record<string, { type: string; rate: number }>;
}

const dataset = createRequire(import.meta.url)('sales-tax/res/sales_tax_rates.json') as Record<string, RateRecord>;

export interface TaxRate {
  /** The rate as an exact decimal fraction, e.g. 0.19. */
  readonly rate: Decimal;
  /** What the customer sees: "VAT", "GST", "HST", "GST + PST", "Sales tax", or "" without tax. */
  readonly name: string;
  /**
   * A US rate from the state's rate alone (no ZIP-level table, or the ZIP is not in it): county,
   * city and special district taxes are missing, so the checkout calls the tax "estimated".
   */
  readonly estimated?: boolean;
}

/** EU reverse charge: the business buyer accounts for the VAT; nothing is charged (decisions §9). */
export const REVERSE_CHARGE: TaxRate = Object.freeze({ rate: { units: 0n, scale: 0 }, name: 'Reverse charge' });

const NO_TAX: TaxRate = { rate: { units: 0n, scale: 0 }, name: '' };

function addDecimals(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: a.units * 10n ** BigInt(scale - a.scale) + b.units * 10n ** BigInt(scale - b.scale), scale };
}

function label(type: string, country: string): string {
  if (country === 'US') return 'Sales tax';
  if (type === 'none') return '';
  return type.toUpperCase();
}

/** Every ISO 3166-1 country (with its currency, from country-to-currency), sorted: a country picker's choices. */
export const KNOWN_COUNTRIES: readonly string[] = Object.freeze(
  Object.keys(countryToCurrency)
    .filter((c) => /^[A-Z]{2}$/.test(c))
    .sort(),
);

/** A country code opentill can price for; countries the tax dataset does not list charge no tax. */
export function isKnownCountry(country: string): boolean {
  return Object.hasOwn(countryToCurrency, country);
}

/** The country's own currency, e.g. DE -> EUR, HK -> HKD. */
export function localCurrencyOf(country: string): string | undefined {
  return (countryToCurrency as Record<string, string>)[country] ?? dataset[country]?.currency;
}

/** Where the tax is asked for beyond the country and region: a US ZIP code, and the ZIP-level table in use. */
export interface TaxLookup {
  zip?: string | null | undefined;
  usSalesTax?: UsSalesTaxTable | undefined;
}

/** The ZIP-level table's row of a US ZIP code (five digits, or ZIP+4), if the table has it. */
export function usZipRow(lookup: TaxLookup): ZipTaxRow | undefined {
  const zip = /^(\d{5})(?:-?\d{4})?$/.exec(lookup.zip?.trim() ?? '')?.[1];
  return zip ? lookup.usSalesTax?.rows.get(zip) : undefined;
}

/**
 * The tax of a country, plus the state or province's where it has one (US, CA, ...). In the US, a
 * ZIP code found in the imported ZIP-level table is taxed at that row's combined rate (state, county,
 * city and special districts); otherwise at the state's rate, marked as estimated.
 */
export function taxRateFor(country: string, region?: string | null, lookup: TaxLookup = {}): TaxRate {
  if (country === 'US') {
    const row = usZipRow(lookup);
    if (row) return row.combined.units === 0n ? NO_TAX : { rate: row.combined, name: label('', 'US') };
    return { ...datasetRate(country, region), estimated: true };
  }
  return datasetRate(country, region);
}

function datasetRate(country: string, region?: string | null): TaxRate {
  const record = dataset[country];
  if (!record) return NO_TAX;
  let rate = parseDecimal(record.rate);
  let name = label(record.type, country);
  const state = region ? record.states?.[region.toUpperCase()] : undefined;
  if (state && state.rate < 0) {
    // A negative adjustment replaces the national tax (Canary Islands: IGIC 7% instead of 21% VAT).
    rate = addDecimals(rate, parseDecimal(state.rate));
    name = label(state.type, country);
  } else if (state && state.rate > 0) {
    rate = addDecimals(rate, parseDecimal(state.rate));
    const stateName = label(state.type, country);
    // Canada's HST replaces GST in name; PST and QST are charged beside GST.
    name = state.type === 'hst' || !name || name === stateName ? stateName : `${name} + ${stateName}`;
  }
  return rate.units === 0n ? NO_TAX : { rate, name };
}

/** One ZIP code's row of a ZIP-level US sales tax table: rates as exact decimal fractions. */
export interface ZipTaxRow {
  readonly state: string;
  readonly zip: string;
  readonly regionName: string;
  readonly stateRate: Decimal;
  readonly combined: Decimal;
  readonly county: Decimal;
  readonly city: Decimal;
  readonly special: Decimal;
}

/** A ZIP-level US sales tax table (`opentill tax import`), by five-digit ZIP code. */
export interface UsSalesTaxTable {
  readonly rows: ReadonlyMap<string, ZipTaxRow>;
}

/** The USPS codes of the 50 states and DC: the states a ZIP-level table may name. */
export const US_STATES: ReadonlySet<string> = new Set(
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'.split(
    ' ',
  ),
);

/** The columns of the widely published layout (Avalara's free per-state files), found by name; RiskLevel and others are ignored. */
export const US_SALES_TAX_COLUMNS = [
  'State',
  'ZipCode',
  'TaxRegionName',
  'StateRate',
  'EstimatedCombinedRate',
  'EstimatedCountyRate',
  'EstimatedCityRate',
  'EstimatedSpecialRate',
] as const;

/** Fields of one CSV line: commas, double quotes around fields that hold commas or quotes ("" is a quote). */
function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += line[i++];
      }
      fields.push(value.trim());
      if (i < line.length && line[i] !== ',') return null;
    } else {
      const end = line.indexOf(',', i);
      fields.push(line.slice(i, end < 0 ? line.length : end).trim());
      i = end < 0 ? line.length : end;
    }
    if (i >= line.length) return fields;
    i++;
  }
}

const MAX_RATE: Decimal = { units: 2n, scale: 1 };
const TOLERANCE: Decimal = { units: 1n, scale: 5 };

function compare(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const x = a.units * 10n ** BigInt(scale - a.scale);
  const y = b.units * 10n ** BigInt(scale - b.scale);
  if (x < y) return -1;
  return x > y ? 1 : 0;
}

const negate = (d: Decimal): Decimal => ({ units: -d.units, scale: d.scale });
const abs = (d: Decimal): Decimal => (d.units < 0n ? negate(d) : d);

/**
 * Parses and checks a ZIP-level table in full: the header names every column of the layout; every
 * row has a five-digit ZIP code of a known state, rates from 0 to 0.2 written as decimal fractions,
 * and a combined rate that is the sum of the state, county, city and special rates within 0.00001.
 * The first wrong line is named (`line 7: ...`); nothing of a wrong file is used.
 */
export function parseUsSalesTaxCsv(text: string): UsSalesTaxTable {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = csvFields(lines[0] ?? '');
  if (!header) throw invalidInput('line 1: the header is not a CSV line.');
  const index = new Map(header.map((name, i) => [name.toLowerCase(), i]));
  const missing = US_SALES_TAX_COLUMNS.filter((c) => !index.has(c.toLowerCase()));
  if (missing.length > 0)
    throw invalidInput(
      `line 1: the header lacks ${missing.join(', ')} (expected ${US_SALES_TAX_COLUMNS.join(',')},RiskLevel).`,
    );
  const col = (fields: string[], name: (typeof US_SALES_TAX_COLUMNS)[number]) =>
    fields[index.get(name.toLowerCase())!] ?? '';
  const rows = new Map<string, ZipTaxRow>();
  const seenOn = new Map<string, number>();
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const where = `line ${n + 1}`;
    const fields = csvFields(line);
    if (!fields) throw invalidInput(`${where}: not a CSV line (an unclosed quote?).`);
    if (fields.length < header.length)
      throw invalidInput(`${where}: ${fields.length} fields, the header has ${header.length}.`);
    const state = col(fields, 'State').toUpperCase();
    if (!US_STATES.has(state))
      throw invalidInput(`${where}: "${col(fields, 'State')}" is not a US state code (such as NY).`);
    const zip = col(fields, 'ZipCode');
    if (!/^\d{5}$/.test(zip)) throw invalidInput(`${where}: ZipCode "${zip}" is not a five-digit ZIP code.`);
    if (seenOn.has(zip)) throw invalidInput(`${where}: ZIP code ${zip} is already on line ${seenOn.get(zip)}.`);
    const rate = (name: (typeof US_SALES_TAX_COLUMNS)[number]): Decimal => {
      const value = col(fields, name);
      if (!/^\d+(\.\d+)?$/.test(value))
        throw invalidInput(`${where}: ${name} "${value}" is not a decimal rate such as 0.045.`);
      const decimal = parseDecimal(value);
      if (compare(decimal, MAX_RATE) > 0)
        throw invalidInput(
          `${where}: ${name} ${value} is above 0.2; rates are decimal fractions (0.045 for 4.5%), not percentages.`,
        );
      return decimal;
    };
    const row: ZipTaxRow = {
      state,
      zip,
      regionName: col(fields, 'TaxRegionName'),
      stateRate: rate('StateRate'),
      combined: rate('EstimatedCombinedRate'),
      county: rate('EstimatedCountyRate'),
      city: rate('EstimatedCityRate'),
      special: rate('EstimatedSpecialRate'),
    };
    const sum = [row.county, row.city, row.special].reduce(addDecimals, row.stateRate);
    if (compare(abs(addDecimals(row.combined, negate(sum))), TOLERANCE) > 0) {
      throw invalidInput(
        `${where}: EstimatedCombinedRate ${formatDecimal(row.combined)} is not StateRate + EstimatedCountyRate + EstimatedCityRate + EstimatedSpecialRate (${formatDecimal(sum)}).`,
      );
    }
    rows.set(zip, row);
    seenOn.set(zip, n + 1);
  }
  if (rows.size === 0) throw invalidInput('The file has a header but no ZIP code rows.');
  return { rows };
}

/** The table as CSV in the same layout (without RiskLevel), sorted by ZIP code: what `opentill tax import` writes. */
export function formatUsSalesTaxCsv(table: UsSalesTaxTable): string {
  const quote = (text: string) => (/[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const lines = [...table.rows.values()]
    .sort((a, b) => (a.zip < b.zip ? -1 : 1))
    .map((r) =>
      [
        r.state,
        r.zip,
        quote(r.regionName),
        ...[r.stateRate, r.combined, r.county, r.city, r.special].map(formatDecimal),
      ].join(','),
    );
  return [US_SALES_TAX_COLUMNS.join(','), ...lines].join('\n') + '\n';
}
