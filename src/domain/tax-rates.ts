import { createRequire } from 'node:module';
import countryToCurrency from 'country-to-currency';
import { parseDecimal, type Decimal } from './money.ts';

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
}

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

/** The tax of a country, plus the state or province's where it has one (US, CA, ...). */
export function taxRateFor(country: string, region?: string | null): TaxRate {
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
