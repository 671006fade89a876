import { InvalidArgumentError } from 'commander';
import type { Environment } from '../domain/model.ts';
import { parsePriceText, type PriceText } from '../domain/catalog/index.ts';

/** Commander option parsers: a bad value stops the command with commander's usage error and help. */

export function environment(value: string): Environment {
  if (value !== 'sandbox' && value !== 'production') throw new InvalidArgumentError('must be sandbox or production');
  return value;
}

/** A repeatable `--price USD:19.99`: each use adds to the list the previous ones built. */
export function prices(value: string, previous: PriceText[] = []): PriceText[] {
  const invalid = () => new InvalidArgumentError('write prices as CURRENCY:AMOUNT, e.g. USD:19.99');
  let parsed: PriceText[];
  try {
    parsed = parsePriceText(value);
  } catch {
    throw invalid();
  }
  if (parsed.length === 0) throw invalid();
  return [...previous, ...parsed];
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

export function yesOrNo(value: string): boolean {
  if (!['yes', 'no', 'true', 'false'].includes(value)) throw new InvalidArgumentError('must be yes or no');
  return value === 'yes' || value === 'true';
}
