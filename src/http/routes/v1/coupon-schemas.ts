import { Type } from 'typebox';

/**
 * The wire shapes of opentill's own coupon API (docs/decisions.md §38): not in the original API, so
 * every operation carries `x-opentill-extension` in the OpenAPI document. The terms mean what the
 * panel's coupon form and `opentill coupon create` mean by them.
 */

const id = Type.String({
  maxLength: 100,
  description: 'The coupon id.',
  examples: ['TC-CO_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
});
const productId = Type.String({
  maxLength: 100,
  description: 'The product it belongs to.',
  examples: ['TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
});
const DURATION_WORDS =
  "Which payments it discounts: 'once' (the first; when not given), 'forever', or 'repeating' (the first `durationPeriods` billing periods, the first payment being period 1).";

const AmountIn = Type.Object(
  {
    currency: Type.String({ maxLength: 3, description: 'ISO 4217 code, any case.', examples: ['USD'] }),
    value: Type.Union([Type.Number(), Type.String({ maxLength: 32 })], {
      description: "Amount off the net price in that currency's major unit.",
      examples: [5],
    }),
  },
  { additionalProperties: false },
);

export const CouponParams = Type.Object({ couponId: id });

export const CreateCouponBody = Type.Object(
  {
    productId,
    code: Type.String({
      maxLength: 100,
      description: '3 to 32 letters, digits, "-" or "_"; customers may type it in any case.',
      examples: ['LAUNCH20'],
    }),
    percentOff: Type.Optional(
      Type.Union([Type.Number(), Type.String({ maxLength: 32 })], {
        description: 'Percent off the net price, more than 0 and at most 100, two decimals at most. Or `amountsOff`.',
        examples: [20],
      }),
    ),
    amountsOff: Type.Optional(
      Type.Array(AmountIn, {
        maxItems: 200,
        description:
          'An amount off the net price per currency, USD required (others converted from it). Or `percentOff`.',
        examples: [[{ currency: 'USD', value: 5 }]],
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({ maxLength: 40, description: 'When it stops (ISO 8601).', examples: ['2031-12-31'] }),
    ),
    startsAt: Type.Optional(
      Type.String({ maxLength: 40, description: 'When it may first be used (ISO 8601).', examples: ['2031-01-01'] }),
    ),
    duration: Type.Optional(Type.String({ maxLength: 20, description: DURATION_WORDS, examples: ['repeating'] })),
    durationPeriods: Type.Optional(
      Type.Integer({ description: "For 'repeating': how many billing periods (1 to 999).", examples: [3] }),
    ),
    maxRedemptions: Type.Optional(
      Type.Integer({ description: 'Paid purchases it may discount in all.', examples: [100] }),
    ),
    maxPerCustomer: Type.Optional(
      Type.Integer({ description: 'Paid purchases it may discount per buyer e-mail.', examples: [1] }),
    ),
    otherProductIds: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        maxItems: 100,
        description: 'Other products of yours it also applies to.',
        examples: [['TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X9A']],
      }),
    ),
    frequencies: Type.Optional(
      Type.Array(Type.String({ maxLength: 20 }), {
        maxItems: 10,
        description: 'The charge frequencies it applies to (MONTHLY, YEARLY, ...); all when not given.',
        examples: [['MONTHLY']],
      }),
    ),
    firstPurchaseOnly: Type.Optional(
      Type.Boolean({
        description: 'Only for a buyer e-mail with no earlier paid purchase of yours.',
        examples: [false],
      }),
    ),
  },
  { additionalProperties: false, description: 'A new coupon. A field this call does not know is refused (400).' },
);

const isoOrNull = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description, examples: ['2031-12-31T00:00:00.000Z'] });

export const CouponBody = Type.Object({
  id,
  productId,
  code: Type.String({ description: 'Upper case.', examples: ['LAUNCH20'] }),
  percentOff: Type.Union([Type.String(), Type.Null()], {
    description: 'Percent off as a decimal string, or null for amounts off.',
    examples: ['20'],
  }),
  amountsOff: Type.Array(
    Type.Object({
      currency: Type.String({ description: 'ISO 4217 code.', examples: ['USD'] }),
      value: Type.Number({ description: "The amount off in that currency's major unit.", examples: [5] }),
      valueS: Type.String({ description: 'The same amount as a string, exact.', examples: ['5.00'] }),
    }),
    {
      description: 'Amounts off by currency, USD first; empty for a percentage.',
      examples: [[{ currency: 'USD', value: 5, valueS: '5.00' }]],
    },
  ),
  duration: Type.String({
    enum: ['once', 'forever', 'repeating'],
    description: DURATION_WORDS,
    examples: ['repeating'],
  }),
  durationPeriods: Type.Union([Type.Integer(), Type.Null()], { description: "For 'repeating'.", examples: [3] }),
  maxRedemptions: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Cap in all; null: none.',
    examples: [100],
  }),
  redemptions: Type.Integer({ description: 'Redemptions used, or held by a payment still open.', examples: [12] }),
  maxPerCustomer: Type.Union([Type.Integer(), Type.Null()], { description: 'Cap per buyer e-mail.', examples: [1] }),
  otherProductIds: Type.Array(Type.String(), { description: 'Other products it applies to.', examples: [[]] }),
  frequencies: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The frequencies it applies to; null: all.',
    examples: [['MONTHLY']],
  }),
  firstPurchaseOnly: Type.Boolean({
    description: 'Only for a buyer e-mail with no earlier paid purchase of yours.',
    examples: [false],
  }),
  startsAt: isoOrNull('When it may first be used; null: from its creation.'),
  expiresAt: isoOrNull('When it stops; null: never.'),
  revokedAt: isoOrNull('When it was revoked; null: not revoked.'),
  createDate: Type.String({ description: 'When it was made.', examples: ['2031-01-01T00:00:00.000Z'] }),
});
