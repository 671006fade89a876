import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { invalidInput } from '../domain/errors.ts';
import {
  formatExchangeRateDaysXml,
  formatExchangeRatesXml,
  mergeRateDays,
  parseExchangeRateDays,
  parseExchangeRates,
  type ExchangeRates,
} from '../domain/money/index.ts';
import { writeFileAtomically } from './atomic-write.ts';

/**
 * Exchange-rate tables as files: the snapshot bundled with opentill, and the one `opentill rates
 * import` writes. The domain parses and formats the text; reading and writing files happens here.
 */
export const BUNDLED_RATES_FILE = fileURLToPath(new URL('./exchange-rates.xml', import.meta.url));

/** Reads and parses a rate table file; errors name the file. */
export function loadExchangeRates(
  file: string = BUNDLED_RATES_FILE,
  options: { undatedAs?: string } = {},
): ExchangeRates {
  return readRates(file, (text) => parseExchangeRates(text, options));
}

/** Every day of an ECB file (the history, eurofxref-hist.xml, or one day's); errors name the file. */
export function loadExchangeRateDays(file: string): ExchangeRates[] {
  return readRates(file, parseExchangeRateDays);
}

function readRates<T>(file: string, parse: (text: string) => T): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw invalidInput(`Cannot read the rate table ${file}: ${(err as Error).message}`);
  }
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof Error) err.message = `${file}: ${err.message}`;
    throw err;
  }
}

/**
 * Writes the table to `file` atomically: a temporary file in the same directory, flushed to disk,
 * then renamed over the old one, so a reader sees the old table or the new one, never half of one.
 */
export function writeExchangeRatesFile(file: string, rates: ExchangeRates): void {
  writeFileAtomically(file, formatExchangeRatesXml(rates), 0o644);
}

/**
 * The ECB days kept for tax returns (docs/decisions.md §23), which convert at the rate of a period's
 * last day: every day `opentill rates import` was given, merged into one file. None kept: no days.
 */
export function loadRateHistory(file: string): ExchangeRates[] {
  return existsSync(file) ? loadExchangeRateDays(file) : [];
}

/** Adds the days to the kept history (a day imported again is replaced), written atomically. Answers how many days it keeps. */
export function addToRateHistory(file: string, days: readonly ExchangeRates[]): number {
  const merged = mergeRateDays(loadRateHistory(file), days);
  writeFileAtomically(file, formatExchangeRateDaysXml(merged), 0o644);
  return merged.length;
}
