import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { invalidInput } from './errors.ts';
import { isCurrency, parseDecimal, type Decimal } from './money.ts';

/**
 * Rates against EUR as the ECB publishes them. Conversion from USD to X is rate(X) / rate(USD),
 * kept as an exact fraction until the final rounding (see convertFromUsd in pricing.ts).
 */
export interface ExchangeRates {
  readonly date: string;
  /** Units of currency per 1 EUR; EUR itself is 1. */
  readonly perEuro: ReadonlyMap<string, Decimal>;
}

export const BUNDLED_RATES_FILE = fileURLToPath(new URL('./reference/exchange-rates.xml', import.meta.url));

/** Parses the ECB eurofxref XML, or a CSV with lines "currency,rate" (rate per 1 EUR). */
export function parseExchangeRates(text: string): ExchangeRates {
  const perEuro = new Map<string, Decimal>([['EUR', { units: 1n, scale: 0 }]]);
  let date = '';
  if (text.trimStart().startsWith('<')) {
    date = /time=['"]([0-9-]+)['"]/.exec(text)?.[1] ?? '';
    for (const match of text.matchAll(/currency=['"]([A-Za-z]{3})['"]\s+rate=['"]([0-9.]+)['"]/g)) {
      perEuro.set(match[1]!.toUpperCase(), parseDecimal(match[2]!));
    }
  } else {
    for (const line of text.split(/\r?\n/)) {
      const [currency, rate] = line.split(',').map((s) => s.trim());
      if (!currency || !rate || !/^[A-Za-z]{3}$/.test(currency) || !/^[0-9.]+$/.test(rate)) continue;
      perEuro.set(currency.toUpperCase(), parseDecimal(rate));
    }
    date = new Date().toISOString().slice(0, 10);
  }
  for (const [currency, rate] of perEuro) {
    if (!isCurrency(currency)) throw invalidInput(`The rate table names ${currency}, which is not an ISO 4217 currency.`);
    if (rate.units <= 0n) throw invalidInput(`The rate of ${currency} must be positive.`);
  }
  if (!perEuro.has('USD')) throw invalidInput('The rate table has no USD rate: every conversion starts from USD.');
  return { date, perEuro };
}

export function loadExchangeRates(file: string = BUNDLED_RATES_FILE): ExchangeRates {
  return parseExchangeRates(readFileSync(file, 'utf8'));
}
