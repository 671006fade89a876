import currencyCodes from 'currency-codes';
import { formatDecimalForBuyer } from './buyer-money.ts';
import { invalidInput } from '../errors.ts';

/**
 * Money is an integer count of a currency's minor units. Every conversion between that and the
 * decimal numbers clients send or read happens here, with exact (BigInt) arithmetic and
 * half-up rounding, so no binary floating point rounding ever reaches a stored amount.
 */

const exponents = new Map<string, number>();
for (const entry of currencyCodes.data) {
  if (typeof entry.digits === 'number' && /^[A-Z]{3}$/.test(entry.code)) exponents.set(entry.code, entry.digits);
}

export function isCurrency(code: string): boolean {
  return exponents.has(code.toUpperCase());
}

/** Accepts any case, returns the upper-case ISO 4217 code, or throws INVALID_INPUT. */
export function normalizeCurrency(input: string): string {
  const code = String(input).trim().toUpperCase();
  if (!exponents.has(code)) throw invalidInput(`"${input}" is not an ISO 4217 currency code.`);
  return code;
}

export function currencyExponent(currency: string): number {
  const exponent = exponents.get(currency);
  if (exponent === undefined) throw invalidInput(`"${currency}" is not an ISO 4217 currency code.`);
  return exponent;
}

/** An exact decimal as numerator / 10^scale, parsed from a JSON number or a decimal string. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

export function parseDecimal(value: number | string): Decimal {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw invalidInput(`"${value}" is not a decimal number.`);
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(whole + fraction) * (sign === '-' ? -1n : 1n);
  return { units, scale: fraction.length };
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) throw invalidInput(`${value} is not a finite number.`);
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Shortest round-trip digits, shifted by the exponent: 1e-7 -> "0.0000001".
  const [mantissa, exp] = text.toLowerCase().split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const pointAt =
    (mantissa.replace('-', '').indexOf('.') === -1
      ? mantissa.replace('-', '').length
      : mantissa.replace('-', '').indexOf('.')) + Number(exp);
  const padded = withPointAt(digits, pointAt);
  return (negative ? '-' : '') + padded;
}

/** `digits` with the decimal point before index `pointAt`, padded with zeros on whichever side it falls outside. */
function withPointAt(digits: string, pointAt: number): string {
  if (pointAt <= 0) return '0.' + '0'.repeat(-pointAt) + digits;
  if (pointAt >= digits.length) return digits + '0'.repeat(pointAt - digits.length);
  return digits.slice(0, pointAt) + '.' + digits.slice(pointAt);
}

/**
 * A client's amount (JSON number or string) in minor units. Refuses more decimals than the
 * currency has: silently rounding a price a vendor typed would charge a different amount.
 */
export function toMinor(value: number | string, currency: string): number {
  const exponent = currencyExponent(currency);
  const decimal = parseDecimal(value);
  let units = decimal.units;
  let scale = decimal.scale;
  while (scale > exponent && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  if (scale > exponent) {
    throw invalidInput(`${value} has more decimals than ${currency} allows (${exponent}).`);
  }
  const minor = units * 10n ** BigInt(exponent - scale);
  if (minor > BigInt(Number.MAX_SAFE_INTEGER) || minor < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalidInput(`${value} ${currency} is too large.`);
  }
  return Number(minor);
}

/** "20.00" for 2000 USD, "1500" for 1500 JPY, "1.250" for 1250 KWD. */
export function formatMinor(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return negative ? `-${text}` : text;
}

/** "12.50 EUR": an amount as pages and documents show it. */
export function formatAmount(minor: number, currency: string): string {
  return `${formatMinor(minor, currency)} ${currency}`;
}

/**
 * An amount in the buyer's locale ("$49.00", "49,00 €", "-¥1,500"), exact from the minor units, with the
 * currency's decimals: what the widget, the checkout, the receipt and the invoice show (src/domain/money/buyer-money.ts).
 */
export function formatForBuyer(minor: number, currency: string, locale: string): string {
  return formatDecimalForBuyer(formatMinor(minor, currency), currency, locale);
}

/** The JSON number of an amount: the same value as formatMinor, as a number. */
export function minorToNumber(minor: number, currency: string): number {
  return Number(formatMinor(minor, currency));
}

/** round(units / divisor) with halves rounded away from zero. */
export function divideRoundHalfUp(units: bigint, divisor: bigint): bigint {
  const negative = units < 0n !== divisor < 0n;
  const a = units < 0n ? -units : units;
  const b = divisor < 0n ? -divisor : divisor;
  const quotient = (a * 2n + b) / (b * 2n);
  return negative ? -quotient : quotient;
}

const MAX_SAFE_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A computed count of minor units as a number. Past Number.MAX_SAFE_INTEGER a double cannot hold
 * every integer, so such an amount is refused instead of being silently rounded by a float.
 * `what` names the amount in the error (called only then).
 */
export function safeMinor(minor: bigint, what: () => string): number {
  if (minor > MAX_SAFE_MINOR || minor < -MAX_SAFE_MINOR)
    throw invalidInput(`${what()} is too large to be handled exactly.`);
  return Number(minor);
}

/** amount x rate, rounded half-up to the minor unit (tax on a net amount). */
export function multiplyByRate(minor: number, rate: Decimal): number {
  return safeMinor(
    divideRoundHalfUp(BigInt(minor) * rate.units, 10n ** BigInt(rate.scale)),
    () => `${minor} minor units x ${formatDecimal(rate)}`,
  );
}

/**
 * Converts with a rate meaning "1 unit of `from` = rate units of `to`", minding both exponents.
 */
export function convert(minor: number, from: string, to: string, rate: Decimal): number {
  const shift = currencyExponent(to) - currencyExponent(from);
  let numerator = BigInt(minor) * rate.units;
  let denominator = 10n ** BigInt(rate.scale);
  if (shift >= 0) numerator *= 10n ** BigInt(shift);
  else denominator *= 10n ** BigInt(-shift);
  return safeMinor(divideRoundHalfUp(numerator, denominator), () => `${formatMinor(minor, from)} ${from} in ${to}`);
}

/** A decimal rate as a plain string, e.g. {units: 19n, scale: 2} -> "0.19". */
export function formatDecimal(decimal: Decimal): string {
  const negative = decimal.units < 0n;
  const digits = (negative ? -decimal.units : decimal.units).toString().padStart(decimal.scale + 1, '0');
  const text = decimal.scale === 0 ? digits : `${digits.slice(0, -decimal.scale)}.${digits.slice(-decimal.scale)}`;
  return (negative ? '-' : '') + text;
}

/** A rate as a percentage: "0.19" → "19%", "0.0725" → "7.25%". */
export function ratePercent(rate: string): string {
  const { units, scale } = parseDecimal(rate);
  return `${formatDecimal(scale >= 2 ? { units, scale: scale - 2 } : { units: units * 10n ** BigInt(2 - scale), scale: 0 })}%`;
}

/** Currencies in order, USD first (the panel's figures and price lists): a sort comparator. */
export function usdFirst(a: string, b: string): number {
  if (a === 'USD') return -1;
  return b === 'USD' ? 1 : a.localeCompare(b);
}
