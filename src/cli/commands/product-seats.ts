import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';

/** `--seat-tier FROM:CUR:AMOUNT`, repeatable: from that many seats on, every seat at that price (one currency a flag). */
function seatTier(value: string, previous: string[] = []): string[] {
  if (!/^\d+:[A-Za-z]{3}:\d+(\.\d+)?$/.test(value.trim()))
    throw new InvalidArgumentError('write a tier as FROM:CURRENCY:AMOUNT, e.g. 10:USD:8.00');
  return [...previous, value.trim()];
}

/**
 * `opentill product create --seats MIN-MAX [--seat-tier FROM:CUR:AMOUNT ...]` (docs/decisions.md §39): the
 * product is sold per seat, its prices per seat; the tiers of one quantity are merged into one tier.
 * The domain checks the range and the tiers, with the API's and the panel's words.
 */
export function registerSeatOptions(program: Command) {
  const product = program.commands.find((c) => c.name() === 'product')!;
  product.commands
    .find((c) => c.name() === 'create')!
    .option('--seats <MIN-MAX>', 'sold per seat, from MIN to MAX seats a purchase (prices are per seat)')
    .option(
      '--seat-tier <FROM:CUR:AMOUNT>',
      'volume tier, repeatable: from FROM seats on, every seat costs it',
      seatTier,
    );
}

/** The seats of `product create`'s options, as the product API takes them; undefined when not per seat. */
export function seatsOption(opts: { seats?: string; seatTier?: string[] }): unknown {
  if (opts.seats === undefined) return undefined;
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(opts.seats);
  if (!range) throw new InvalidArgumentError('write --seats as MIN-MAX, e.g. 1-50');
  const tiers = new Map<number, { currency: string; value: string }[]>();
  for (const tier of opts.seatTier ?? []) {
    const [from, currency, value] = tier.split(':') as [string, string, string];
    tiers.set(Number(from), [...(tiers.get(Number(from)) ?? []), { currency, value }]);
  }
  return {
    minQuantity: Number(range[1]),
    maxQuantity: Number(range[2]),
    tiers: [...tiers].map(([fromQuantity, prices]) => ({ fromQuantity, prices })),
  };
}

/** What `product create` takes from the options registered beside it: the activation limit (§40) and the seats. */
export const addedOptions = (opts: { activationLimit?: number | null; seats?: string; seatTier?: string[] }) => ({
  activationLimit: opts.activationLimit,
  seats: seatsOption(opts),
});
