import { Type, type Static } from 'typebox';
import { QUANTITY_LIMIT } from '../../../domain/catalog/index.ts';
import type { SeatPricing } from '../../../domain/model.ts';
import { formatMinor, minorToNumber, usdFirst } from '../../../domain/money/index.ts';

/**
 * The wire shape of a product's seats (docs/decisions.md §39), opentill's own as the whole product API:
 * a quantity range and volume tiers, the tier prices given as the product's own prices are.
 */

const quantity = (description: string, example: number) =>
  Type.Integer({ minimum: 1, maximum: QUANTITY_LIMIT, description, examples: [example] });

const TierPrice = Type.Object(
  {
    currency: Type.String({ maxLength: 3, description: 'ISO 4217 code, any case.', examples: ['USD'] }),
    value: Type.Union([Type.Number(), Type.String({ maxLength: 32 })], {
      description: 'Net price of each seat (before tax) in the major unit.',
      examples: [8],
    }),
  },
  { description: 'A net price per seat in one currency.' },
);

const TIER_EXAMPLE = [{ fromQuantity: 10, prices: [{ currency: 'USD', value: 8 }] }];
const TIER_WORDS =
  "Volume tiers, ascending, above minQuantity: every seat costs the tier the total quantity falls in; below the first, the product's prices.";

const TierIn = Type.Object(
  {
    fromQuantity: quantity('From this total quantity on, every seat costs this tier’s prices.', 10),
    prices: Type.Array(TierPrice, {
      maxItems: 200,
      description: "Net prices per seat, in exactly the product's currencies (USD required).",
      examples: [[{ currency: 'USD', value: 8 }]],
    }),
  },
  { additionalProperties: false, description: 'A volume tier.' },
);

export const SeatsIn = Type.Union(
  [
    Type.Object(
      {
        minQuantity: Type.Optional(quantity('The fewest seats a purchase has (1 when not given).', 1)),
        maxQuantity: Type.Optional(quantity(`The most seats a purchase has (${QUANTITY_LIMIT} when not given).`, 50)),
        tiers: Type.Optional(Type.Array(TierIn, { maxItems: 20, description: TIER_WORDS, examples: [TIER_EXAMPLE] })),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      "opentill's own: sell the product per seat. The buyer chooses the quantity at checkout (or `data-ts-quantity`, customize-product's `quantity`); the price, tax, renewals and proration follow it. null: one per purchase.",
    examples: [{ minQuantity: 1, maxQuantity: 50, tiers: TIER_EXAMPLE }],
  },
);

const PriceOut = Type.Object(
  {
    currency: Type.String({ description: 'ISO 4217 code, upper case.', examples: ['USD'] }),
    value: Type.Number({ description: 'Net price of each seat (before tax) in the major unit.', examples: [8] }),
    valueS: Type.String({ description: "value with exactly the currency's decimals.", examples: ['8.00'] }),
  },
  { description: 'A net price per seat in one currency.' },
);

const TIER_OUT_EXAMPLE = [{ fromQuantity: 10, prices: [{ currency: 'USD', value: 8, valueS: '8.00' }] }];

export const SeatsOut = Type.Union(
  [
    Type.Object({
      minQuantity: Type.Integer({ description: 'The fewest seats a purchase has.', examples: [1] }),
      maxQuantity: Type.Integer({ description: 'The most seats a purchase has.', examples: [50] }),
      tiers: Type.Array(
        Type.Object(
          {
            fromQuantity: Type.Integer({
              description: 'From this total quantity on, every seat costs this tier’s prices.',
              examples: [10],
            }),
            prices: Type.Array(PriceOut, {
              description: 'Net prices per seat, USD first.',
              examples: [[{ currency: 'USD', value: 8, valueS: '8.00' }]],
            }),
          },
          { description: 'A volume tier.' },
        ),
        { description: TIER_WORDS, examples: [TIER_OUT_EXAMPLE] },
      ),
    }),
    Type.Null(),
  ],
  {
    description:
      "opentill's own: the product's seat range and volume tiers (net prices per seat); null when it is sold one per purchase.",
    examples: [{ minQuantity: 1, maxQuantity: 50, tiers: TIER_OUT_EXAMPLE }],
  },
);

/** A product's seats in the API's shape: tier prices as the product's prices are shown. */
export function seatsBody(seats: SeatPricing | null | undefined): Static<typeof SeatsOut> {
  if (!seats) return null;
  return {
    minQuantity: seats.minQuantity,
    maxQuantity: seats.maxQuantity,
    tiers: seats.tiers.map((tier) => ({
      fromQuantity: tier.fromQuantity,
      prices: Object.entries(tier.prices)
        .sort(([a], [b]) => usdFirst(a, b))
        .map(([currency, minor]) => ({
          currency,
          value: minorToNumber(minor, currency),
          valueS: formatMinor(minor, currency),
        })),
    })),
  };
}
