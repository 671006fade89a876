import { Type } from 'typebox';
import { PRODUCT_DESCRIPTION_MAX, PRODUCT_NAME_MAX } from '../../../domain/catalog/index.ts';
import { ACTIVATION_LIMIT_MAX } from '../../../domain/activation-limit.ts';
import { SeatsIn, SeatsOut } from './seat-schemas.ts';

/**
 * The wire shapes of opentill's own product API (docs/decisions.md §28): not in the original API, so
 * every operation carries `x-opentill-extension` in the OpenAPI document.
 */

const id = Type.String({
  maxLength: 100,
  description: 'The product id, as `productId` in transactions and `data-ts-product` on your page.',
  examples: ['TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
});

const TYPES = ['ONETIME', 'SUBSCRIPTION', 'VAULTED'];
const TYPE_WORDS =
  "What a purchase becomes: ONETIME (a one-time payment), SUBSCRIPTION (charged every period) or VAULTED (a saved card you charge with charge-vaulted); the transaction's transactionType. Fixed once created.";
const FREQUENCIES = ['UNKNOWN', 'DAILY', 'WEEKLY', 'MONTHLY', 'HALF_YEARLY', 'YEARLY'];
const FREQUENCY_WORDS =
  "A subscription's period: DAILY, WEEKLY, MONTHLY (when not given), HALF_YEARLY or YEARLY; UNKNOWN for any other type. It may change only while nothing was sold on the product: subscribers renew on the period they signed up for.";

// In requests the values are any case and checked by the catalog, with the panel's and the CLI's words.
const TYPE_IN = Type.String({ maxLength: 40, description: TYPE_WORDS, examples: ['SUBSCRIPTION'] });
const FREQUENCY_IN = Type.String({ maxLength: 40, description: FREQUENCY_WORDS, examples: ['MONTHLY'] });
const TYPE = Type.String({ enum: TYPES, description: TYPE_WORDS, examples: ['SUBSCRIPTION'] });
const FREQUENCY = Type.String({ enum: FREQUENCIES, description: FREQUENCY_WORDS, examples: ['MONTHLY'] });

const PriceIn = Type.Object(
  {
    currency: Type.String({ maxLength: 3, description: 'ISO 4217 code, any case.', examples: ['USD'] }),
    value: Type.Union([Type.Number(), Type.String({ maxLength: 32 })], {
      description:
        "Net price (before tax) in that currency's major unit, with at most its decimals (JPY 0, USD 2, KWD 3).",
      examples: [20],
    }),
  },
  { description: 'A net price in one currency.' },
);

const PricesIn = Type.Union([Type.Array(PriceIn, { maxItems: 200 }), Type.String({ maxLength: 20000 })], {
  description:
    'Net prices, one per currency, USD required. A customer paying in another currency is charged that price; with none, the USD price converted. Also accepted as a string holding the serialized array, as customize-product takes it.',
  examples: [
    [
      { currency: 'USD', value: 20 },
      { currency: 'EUR', value: 18.5 },
    ],
  ],
});

const fields = {
  name: Type.String({
    maxLength: 1000,
    description: `Shown at checkout, on invoices and in transactions (productName); 1 to ${PRODUCT_NAME_MAX} characters after trimming.`,
    examples: ['Acme Cloud Pro'],
  }),
  description: Type.String({
    maxLength: PRODUCT_DESCRIPTION_MAX * 2,
    description: `Shown at checkout under the name; at most ${PRODUCT_DESCRIPTION_MAX} characters after trimming, empty for none.`,
    examples: ['Unlimited projects, priority support.'],
  }),
  chargeFrequency: FREQUENCY_IN,
  trialDays: Type.Integer({
    description: 'Days of free trial before the first charge, 0 to 365; subscriptions only.',
    examples: [14],
  }),
  issuesLicences: Type.Boolean({
    description: 'Whether each paid purchase gets a licence key (checked with check-licence).',
    examples: [false],
  }),
  activationLimit: Type.Union([Type.Integer({ minimum: 1, maximum: ACTIVATION_LIMIT_MAX }), Type.Null()], {
    description:
      "opentill's own: how many instances each licence key may be activated on (POST /v1/licences/{key}/activate); null: no limit. A per-seat product's key gets one per seat bought instead.",
    examples: [3],
  }),
  prices: PricesIn,
};

export const CreateProductBody = Type.Object(
  {
    name: fields.name,
    description: Type.Optional(fields.description),
    type: TYPE_IN,
    chargeFrequency: Type.Optional(fields.chargeFrequency),
    trialDays: Type.Optional(fields.trialDays),
    issuesLicences: Type.Optional(fields.issuesLicences),
    activationLimit: Type.Optional(fields.activationLimit),
    prices: fields.prices,
    seats: Type.Optional(SeatsIn),
  },
  {
    additionalProperties: false,
    description: 'A new product. A field this call does not know is refused (400).',
  },
);

export const UpdateProductBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: Type.Optional(fields.description),
    chargeFrequency: Type.Optional(fields.chargeFrequency),
    trialDays: Type.Optional(fields.trialDays),
    issuesLicences: Type.Optional(fields.issuesLicences),
    activationLimit: Type.Optional(fields.activationLimit),
    prices: Type.Optional(fields.prices),
    seats: Type.Optional(SeatsIn),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'What changes; a field left out keeps its value. The type never changes. A field this call does not know is refused (400).',
  },
);

export const ProductParams = Type.Object({ productId: id });

export const ListProductsQuery = Type.Object(
  {
    archived: Type.Optional(
      Type.String({
        enum: ['true', 'false'],
        description: 'true: archived products only; false: products on sale only; absent: both.',
        examples: ['false'],
      }),
    ),
  },
  { additionalProperties: false },
);

const PriceOut = Type.Object(
  {
    currency: Type.String({ description: 'ISO 4217 code, upper case.', examples: ['USD'] }),
    value: Type.Number({ description: 'Net price (before tax) in the major unit.', examples: [20] }),
    valueS: Type.String({ description: "value with exactly the currency's decimals.", examples: ['20.00'] }),
  },
  { description: 'A net price in one currency.' },
);

export const ProductBody = Type.Object(
  {
    id,
    name: Type.String({
      description: 'Shown at checkout, on invoices and in transactions sold from now on (productName).',
      examples: ['Acme Cloud Pro'],
    }),
    description: Type.String({
      description: 'Shown at checkout under the name; empty for none.',
      examples: ['Unlimited projects, priority support.'],
    }),
    type: TYPE,
    chargeFrequency: FREQUENCY,
    trialDays: Type.Integer({ description: 'Days of free trial before the first charge.', examples: [14] }),
    issuesLicences: fields.issuesLicences,
    activationLimit: fields.activationLimit,
    prices: Type.Array(PriceOut, {
      description: 'Net prices, USD first, then by currency code.',
      examples: [
        [
          { currency: 'USD', value: 20, valueS: '20.00' },
          { currency: 'EUR', value: 18.5, valueS: '18.50' },
        ],
      ],
    }),
    seats: SeatsOut,
    paymentLink: Type.String({
      description: 'The hosted checkout of this product: a link you can send or put on a button.',
      examples: ['https://pay.example.com/sandbox/payment/product/TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
    }),
    createDate: Type.String({
      format: 'date-time',
      description: 'When it was created (UTC).',
      examples: ['2026-11-27T10:15:30.123Z'],
    }),
    archived: Type.Boolean({
      description:
        'Archived: no new sale starts (checkout, price, customize-product refuse it); what was sold goes on, renewals included.',
      examples: [false],
    }),
    archivedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was archived (UTC); null while on sale.',
      examples: [null],
    }),
  },
  { description: 'A product: what a checkout sells, at which prices.' },
);
