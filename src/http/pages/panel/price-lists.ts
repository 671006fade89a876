import { formatMinor, usdFirst } from '../../../domain/money/index.ts';

/** Prices by currency, USD first: the order vendors entered them in is not kept. */
export const byCurrency = (prices: Record<string, number>) => Object.entries(prices).sort(([a], [b]) => usdFirst(a, b));
/** As the price field takes them: "USD 20.00, EUR 18.50". */
export const priceText = (prices: Record<string, number>) =>
  byCurrency(prices)
    .map(([currency, minor]) => `${currency} ${formatMinor(minor, currency)}`)
    .join(', ');
