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
