import { AppError, invalidInput } from '../errors.ts';
import { normalizeCurrency, toMinor } from './money.ts';

/**
 * A list of {currency, value} net prices, as an array or as a string holding the serialized array
 * (both forms exist in client code). Returns minor units by currency; USD is mandatory.
 */
export function parsePriceList(input: unknown): Record<string, number> {
  let list = input;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      throw invalidInput('prices is a string but not a serialized JSON array of {currency, value}.');
    }
  }
  if (!Array.isArray(list) || list.length === 0)
    throw invalidInput('prices must be a non-empty array of {currency, value}.');
  const prices: Record<string, number> = {};
  for (const item of list) {
    if (typeof item !== 'object' || item === null)
      throw invalidInput('Each price must be an object {currency, value}.');
    const { currency, value } = item as { currency?: unknown; value?: unknown };
    if (typeof currency !== 'string') throw invalidInput('Each price needs a currency code, e.g. "USD".');
    const code = normalizeCurrency(currency);
    if (typeof value !== 'number' && typeof value !== 'string')
      throw invalidInput(`The ${code} price needs a numeric value.`);
    const minor = toMinor(value, code);
    if (minor < 0) throw invalidInput(`The ${code} price must not be negative.`);
    if (prices[code] !== undefined) throw invalidInput(`prices lists ${code} twice.`);
    prices[code] = minor;
  }
  if (prices.USD === undefined)
    throw new AppError(
      'USD_PRICE_REQUIRED',
      'prices must include a USD price; other currencies are converted from it when missing.',
    );
  return prices;
}
