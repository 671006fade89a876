import { invalidInput } from '../errors.ts';
import { minorRate, type ExchangeRates } from './exchange-rates.ts';
import {
  divideRoundHalfUp,
  formatDecimal,
  formatMinor,
  isCurrency,
  parseDecimal,
  toMinor,
  type Decimal,
} from './money.ts';

/**
 * The platform's fee on a payment (docs/decisions.md §21): a percentage of the payment's net (tax is
 * the state's, not a sale of the vendor's), plus a fixed amount in one currency, written `5%+0.50USD`,
 * `5%`, `0.30EUR` or `0`. The operator sets a default (PLATFORM_FEE) and may set another per vendor.
 */
export interface PlatformFee {
  /** Percent of the net, exact: {units: 5n, scale: 0} is 5%. */
  readonly percent: Decimal;
  /** The fixed part, in minor units of its currency; null when there is none. */
  readonly fixed: { readonly currency: string; readonly minor: number } | null;
}

export const NO_PLATFORM_FEE: PlatformFee = { percent: { units: 0n, scale: 0 }, fixed: null };

const PART = /^(?:(\d{1,3}(?:\.\d{1,4})?)%|(\d{1,9}(?:\.\d{1,3})?)([A-Za-z]{3}))$/;

/** Parses a fee as the operator writes it; INVALID_INPUT naming what is wrong. */
export function parsePlatformFee(text: string): PlatformFee {
  const written = text.replace(/\s+/g, '');
  if (written === '0') return NO_PLATFORM_FEE;
  const parts = written.split('+');
  let percent: Decimal | undefined;
  let fixed: PlatformFee['fixed'] | undefined;
  for (const part of parts) {
    const match = PART.exec(part);
    if (!match) throw invalidFee(text);
    if (match[1] !== undefined && percent === undefined) percent = shortest(parseDecimal(match[1]));
    else if (match[2] !== undefined && fixed === undefined) fixed = fixedPart(match[2], match[3]!, text);
    else throw invalidFee(text);
  }
  percent ??= NO_PLATFORM_FEE.percent;
  if (percent.units > 100n * 10n ** BigInt(percent.scale))
    throw invalidInput(`The platform fee "${text}" takes more than 100% of a payment.`);
  return { percent, fixed: fixed && fixed.minor > 0 ? fixed : null };
}

/** The same decimal without trailing zeros: 2.50% is 2.5%. */
function shortest({ units, scale }: Decimal): Decimal {
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return { units, scale };
}

function fixedPart(amount: string, code: string, text: string): NonNullable<PlatformFee['fixed']> {
  const currency = code.toUpperCase();
  if (!isCurrency(currency)) throw invalidInput(`"${code}" in the platform fee "${text}" is not an ISO 4217 code.`);
  return { currency, minor: toMinor(amount, currency) };
}

const invalidFee = (text: string) =>
  invalidInput(
    `The platform fee "${text}" is not a fee: write a percentage, a fixed amount with its currency, or both, such as 5%+0.50USD, 5%, 0.30EUR or 0.`,
  );

/** The fee as the operator would write it, `5%+0.50USD` or `0`. */
export function formatPlatformFee(fee: PlatformFee): string {
  const percent = fee.percent.units === 0n ? '' : `${formatDecimal(fee.percent)}%`;
  const fixed = fee.fixed ? `${formatMinor(fee.fixed.minor, fee.fixed.currency)}${fee.fixed.currency}` : '';
  return [percent, fixed].filter(Boolean).join('+') || '0';
}

/**
 * The fee on one payment, in the payment's minor units: the percentage of its net plus the fixed part
 * converted through the ledger's rate table, summed exactly and rounded half-up once. It never takes
 * more than the vendor would keep after the processor's fee, so a vendor's income is never below zero.
 * A fixed part in a currency the table cannot convert (neither it nor the payment's currency listed)
 * is left out: only the percentage is taken.
 */
export function platformFeeMinor(
  fee: PlatformFee,
  payment: { currency: string; netMinor: number; processorFeeMinor: number },
  rates: ExchangeRates,
): number {
  const keeps = payment.netMinor - payment.processorFeeMinor;
  if (keeps <= 0) return 0;
  // percent% of net = net * units / (100 * 10^scale)
  let numerator = BigInt(payment.netMinor) * fee.percent.units;
  let denominator = 100n * 10n ** BigInt(fee.percent.scale);
  const fixed = fee.fixed && fixedIn(fee.fixed, payment.currency, rates);
  if (fixed) {
    // a/b + c/d = (a*d + c*b) / (b*d)
    numerator = numerator * fixed.denominator + fixed.numerator * denominator;
    denominator *= fixed.denominator;
  }
  const minor = Number(divideRoundHalfUp(numerator, denominator));
  return Math.min(minor, keeps);
}

/** The fixed part in `currency`'s minor units as an exact fraction; undefined when the table cannot convert it. */
function fixedIn(
  fixed: NonNullable<PlatformFee['fixed']>,
  currency: string,
  rates: ExchangeRates,
): { numerator: bigint; denominator: bigint } | undefined {
  const rate = minorRate(fixed.currency, currency, rates);
  return rate && { numerator: BigInt(fixed.minor) * rate.numerator, denominator: rate.denominator };
}

/**
 * A fee the operator sets (PLATFORM_FEE, or a vendor's own): parsed, and its fixed part in a currency
 * the rate table lists, so it converts into every currency the table does. INVALID_INPUT otherwise.
 */
export function checkedPlatformFee(text: string, rates: ExchangeRates): PlatformFee {
  const fee = parsePlatformFee(text);
  if (fee.fixed && !rates.perEuro.has(fee.fixed.currency))
    throw invalidInput(
      `The platform fee "${text}" has its fixed part in ${fee.fixed.currency}, which the exchange-rate table does not list: use USD or EUR.`,
    );
  return fee;
}
