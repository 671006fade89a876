import { AppError } from '../errors.ts';

/** One net price as the catalog takes it; the amount stays the decimal string that was written. */
export interface PriceText {
  currency: string;
  value: string;
}

/**
 * Reads prices as people type them: the CLI's `--price USD:19.99` and the vendor panel's
 * "USD 20.00, EUR 18.50". Items are separated by commas, semicolons or new lines; each is a
 * three-letter currency (any case) and an amount, with a space, ":" or "=" between them.
 * Empty text is an empty list: whether USD is there and how many decimals a currency allows are
 * the catalog's rules (`parsePriceList`), not this reader's.
 */
export function parsePriceText(text: string | undefined): PriceText[] {
  return (text ?? '')
    .split(/[,;\n]+/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^([A-Za-z]{3})(?:\s*[:=]\s*|\s+)(\d+(?:\.\d+)?)$/.exec(part);
      if (!match) throw new AppError('INVALID_INPUT', `Write prices as "USD 20.00, EUR 18.50"; "${part}" is not one.`);
      return { currency: match[1]!, value: match[2]! };
    });
}
