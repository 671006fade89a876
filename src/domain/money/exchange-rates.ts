import { invalidInput } from '../errors.ts';
import { isIsoDate } from '../validation.ts';
import { currencyExponent, formatDecimal, isCurrency, type Decimal } from './money.ts';

/**
 * Rates against EUR as the ECB publishes them. Conversion from USD to X is rate(X) / rate(USD),
 * kept as an exact fraction until the final rounding (see convertFromUsd in pricing.ts).
 */
export interface ExchangeRates {
  readonly date: string;
  /** Units of currency per 1 EUR; EUR itself is 1. */
  readonly perEuro: ReadonlyMap<string, Decimal>;
}

const EUR_RATE: Decimal = { units: 1n, scale: 0 };

/**
 * Parses a rate table, telling the two formats apart by content:
 *
 * - ECB eurofxref XML (what https://www.ecb.europa.eu publishes daily): the date is the `time` of the
 *   dated `<Cube>`, every `<Cube currency=".." rate=".."/>` is one rate.
 * - CSV, one `currency,rate` per line, the rate being units of that currency per 1 EUR, e.g.
 *
 *       # ECB reference rates 2026-11-01
 *       currency,rate
 *       USD,1.1600
 *       JPY,176.50
 *
 *   The header line is optional; blank lines are ignored; lines starting with `#` are comments, and
 *   the first YYYY-MM-DD in a comment is the table's date. Without one the table is dated
 *   `undatedAs` (by default today, UTC).
 *
 * Either way: codes are ISO 4217 (any case), rates positive plain decimals kept exact, USD required
 * (every conversion starts from it), no currency twice, and EUR, if listed, exactly 1. Anything else
 * is refused with INVALID_INPUT naming the first problem.
 */
export function parseExchangeRates(text: string, options: { undatedAs?: string } = {}): ExchangeRates {
  const body = text.replace(/^\uFEFF/, '');
  const { date, entries } = body.trimStart().startsWith('<')
    ? readXml(body)
    : readCsv(body, options.undatedAs ?? new Date().toISOString().slice(0, 10));
  if (!isIsoDate(date)) throw invalidInput(`The rate table's date "${date}" is not a YYYY-MM-DD date.`);
  if (entries.length === 0) throw invalidInput('The rate table has no rates.');
  const perEuro = new Map<string, Decimal>([['EUR', EUR_RATE]]);
  const seen = new Set<string>();
  for (const { code, rate, where } of entries) {
    const currency = code.toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency) || !isCurrency(currency))
      throw invalidInput(`${where}: "${code}" is not an ISO 4217 currency code.`);
    if (seen.has(currency)) throw invalidInput(`${where}: ${currency} is listed twice.`);
    seen.add(currency);
    const value = parseRate(rate, currency, where);
    if (currency === 'EUR' && !(value.units === 10n ** BigInt(value.scale)))
      throw invalidInput(`${where}: EUR is the base of the table, its rate must be 1, not ${rate}.`);
    perEuro.set(currency, value);
  }
  if (!perEuro.has('USD')) throw invalidInput('The rate table has no USD rate: every conversion starts from USD.');
  return { date, perEuro };
}

interface Entry {
  code: string;
  rate: string;
  /** Where the entry is, for error messages: "line 3" or "<Cube currency=...>". */
  where: string;
}

function readXml(text: string): { date: string; entries: Entry[] } {
  let date = '';
  const entries: Entry[] = [];
  const elements = text.replace(/<!--[\s\S]*?-->/g, '').matchAll(/<(?:[\w-]+:)?Cube\b([^>]*)>/g);
  for (const [element, attributeText] of elements) {
    const attributes = new Map(
      [...attributeText!.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)].map((m) => [m[1]!, m[2] ?? m[3] ?? '']),
    );
    const time = attributes.get('time');
    if (time !== undefined) {
      // A history file (eurofxref-hist.xml) lists many days, newest first: the first day is the table.
      if (date) break;
      date = time.trim();
    }
    const code = attributes.get('currency');
    if (code === undefined) continue;
    const rate = attributes.get('rate');
    if (rate === undefined) throw invalidInput(`${element.trim()}: the rate of ${code} is missing.`);
    entries.push({ code: code.trim(), rate: rate.trim(), where: element.trim() });
  }
  if (!date) throw invalidInput('The XML rate table has no date (a <Cube time="YYYY-MM-DD"> element).');
  return { date, entries };
}

function readCsv(text: string, undatedAs: string): { date: string; entries: Entry[] } {
  let date = '';
  const entries: Entry[] = [];
  let sawContent = false;
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    const where = `line ${index + 1}`;
    if (!line) continue;
    if (line.startsWith('#')) {
      if (!date) date = /\b(\d{4}-\d{2}-\d{2})\b/.exec(line)?.[1] ?? '';
      continue;
    }
    const fields = line.split(',').map((field) =>
      field
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .trim(),
    );
    const first = !sawContent;
    sawContent = true;
    if (first && fields.length === 2 && fields[0]!.toLowerCase() === 'currency' && fields[1]!.toLowerCase() === 'rate')
      continue;
    if (fields.length !== 2 || /[;\t]/.test(line)) throw invalidInput(`${where}: "${line}" is not "currency,rate".`);
    entries.push({ code: fields[0]!, rate: fields[1]!, where });
  }
  return { date: date || undatedAs, entries };
}

function parseRate(text: string, currency: string, where: string): Decimal {
  const match = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw invalidInput(`${where}: the rate of ${currency}, "${text}", is not a decimal number.`);
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(whole! + fraction);
  if (sign === '-' || units === 0n)
    throw invalidInput(`${where}: the rate of ${currency} must be positive, not ${text}.`);
  return { units, scale: fraction.length };
}

/** The table in ECB eurofxref XML, the format the service loads; EUR is implied, as the ECB does. */
export function formatExchangeRatesXml(rates: ExchangeRates): string {
  return formatExchangeRateDaysXml([rates]);
}

/** Days of tables in the ECB's eurofxref format, newest first as the ECB's history file has them. */
export function formatExchangeRateDaysXml(days: readonly ExchangeRates[]): string {
  const day = (rates: ExchangeRates) => [
    `    <Cube time="${rates.date}">`,
    ...[...rates.perEuro]
      .filter(([currency]) => currency !== 'EUR')
      .map(([currency, rate]) => `      <Cube currency="${currency}" rate="${formatDecimal(rate)}"/>`),
    '    </Cube>',
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!-- Written by `opentill rates import`, in the ECB eurofxref format (1 EUR = rate). -->',
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">',
    '  <gesmes:subject>Reference rates</gesmes:subject>',
    '  <Cube>',
    ...[...days].sort((a, b) => b.date.localeCompare(a.date)).flatMap(day),
    '  </Cube>',
    '</gesmes:Envelope>',
    '',
  ].join('\n');
}

/**
 * What one minor unit of `from` is worth in minor units of `to` at the table, as an exact fraction
 * (through the euro, minding both currencies' exponents); undefined when the table lacks either. The one
 * cross rate: prices converted from USD, a fixed fee in another currency, tax returns in euros.
 */
export function minorRate(
  from: string,
  to: string,
  rates: ExchangeRates,
): { numerator: bigint; denominator: bigint } | undefined {
  if (from === to) return { numerator: 1n, denominator: 1n };
  const source = rates.perEuro.get(from);
  const target = rates.perEuro.get(to);
  if (!source || !target) return undefined;
  // 1 minor unit of `from` = 10^-e(from) / source euros = 10^(e(to) - e(from)) * target / source minor units of `to`.
  let numerator = target.units * 10n ** BigInt(source.scale);
  let denominator = source.units * 10n ** BigInt(target.scale);
  const shift = currencyExponent(to) - currencyExponent(from);
  if (shift >= 0) numerator *= 10n ** BigInt(shift);
  else denominator *= 10n ** BigInt(-shift);
  return { numerator, denominator };
}
