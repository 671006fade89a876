import type { ExchangeRates } from '../money/index.ts';
import { currencyExponent, divideRoundHalfUp } from '../money/index.ts';

/** Minor units of `currency` in USD minor units through the EUR-based table, rounded half-up; undefined without a rate. */
export function toUsd(minor: number, currency: string, rates: ExchangeRates): number | undefined {
  if (currency === 'USD') return minor;
  const usd = rates.perEuro.get('USD');
  const source = rates.perEuro.get(currency);
  if (!usd || !source) return undefined;
  // minor / 10^eSrc units * (usd / src) = USD; times 10^eUSD.
  let numerator = BigInt(minor) * usd.units * 10n ** BigInt(source.scale);
  let denominator = source.units * 10n ** BigInt(usd.scale);
  const shift = currencyExponent('USD') - currencyExponent(currency);
  if (shift >= 0) numerator *= 10n ** BigInt(shift);
  else denominator *= 10n ** BigInt(-shift);
  const negative = numerator < 0n;
  const rounded = divideRoundHalfUp(negative ? -numerator : numerator, denominator);
  return Number(negative ? -rounded : rounded);
}

/**
 * What one unit of `currency` is in USD through the same table, as the panel says it ("1 EUR = 1.1600
 * USD"): at least 4 decimals and 5 significant digits, rounded half-up; undefined without a rate.
 */
export function usdPerUnit(currency: string, rates: ExchangeRates): string | undefined {
  const usd = rates.perEuro.get('USD');
  const source = rates.perEuro.get(currency);
  if (!usd || !source || source.units === 0n) return undefined;
  // (usd.units / 10^usd.scale) / (source.units / 10^source.scale), times 10^decimals.
  const numerator = usd.units * 10n ** BigInt(source.scale);
  const denominator = source.units * 10n ** BigInt(usd.scale);
  let decimals = 4;
  let scaled = divideRoundHalfUp(numerator * 10n ** BigInt(decimals), denominator);
  while (scaled < 10_000n && decimals < 12) {
    decimals++;
    scaled = divideRoundHalfUp(numerator * 10n ** BigInt(decimals), denominator);
  }
  const digits = scaled.toString().padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}
