import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';

/**
 * Request and response schemas of the v1 API: they validate input, let fast-json-stringify
 * serialize output (except on the routes that take `stringified`), and make the OpenAPI document.
 */
const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

export const ErrorBody = Type.Object(
  {
    error: Type.String({
      description:
        'Error name: INVALID_INPUT, USD_PRICE_REQUIRED, PAYLOAD_TOO_LONG, INVALID_EMAIL, INVALID_STATE, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, LINK_EXPIRED, IDEMPOTENCY_CONFLICT, REQUEST_IN_PROGRESS, PAYMENT_PENDING, RATE_LIMITED, ...',
      examples: ['USD_PRICE_REQUIRED'],
    }),
    message: Type.String({
      description: 'What is wrong and how to fix it',
      examples: ['The prices need a USD price: add {"currency": "USD", "value": ...}.'],
    }),
    requestId: Type.Optional(
      Type.String({
        description: 'The id of this request (also in the X-Request-Id header): quote it when asking for help',
        examples: ['6f1c2b1e-9a4d-4b8e-8f0a-2d5c7e9b1a3f'],
      }),
    ),
  },
  { $id: 'Error', description: 'The request was refused; nothing was changed. The body says why and what to do.' },
);

export {
  ChangedTransaction,
  Entry,
  ListedTransaction,
  RefundRecord,
  TransactionWithEntries,
  UpdatedTransaction,
} from './transaction-schemas.ts';

const text = (description: string, example: unknown, options: object = {}) =>
  Type.String({ description, examples: [example], ...options });

/** Path parameters, described once. */
export const TransactionParams = Type.Object({
  transactionId: text('The transaction id.', 'TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'),
});

export const UrlResult = Type.Object(
  {
    url: text(
      'The temporary address.',
      'https://pay.example.com/sandbox/manage/eyJ2IjoiVEMtVkVfMDFKRDNXIn0.Jt2oM1b8CqZ6v0nQe3Xg',
    ),
  },
  { description: 'A temporary, unforgeable address.' },
);

/**
 * The body of a route that the original API calls without one (refund, cancel): absent, it is `null`;
 * sent, an object of the fields the route knows and no other, so a client never silently gets
 * something other than it asked for (docs/decisions.md §1, "Beyond the seed").
 */
export const optionalBody = <T extends TSchema>(body: T) => Type.Union([body, Type.Null()]);

/** The route's preValidation with `optionalBody`: no body at all is `null`, which the schema takes. */
export function absentBodyIsNull(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) {
  if (request.body === undefined) request.body = null;
  done();
}

export const RefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String({ maxLength: 32 })], {
        description:
          "Gross amount to refund, in the transaction's currency; at most what is left of the payment. Absent: all that is left.",
        examples: [10],
      }),
    ),
    currency: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 3,
        description: "If given, must be the payment's currency.",
        examples: ['EUR'],
      }),
    ),
    entryId: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The payment (ledger entry id) to refund; by default the latest with something left.',
        examples: ['TC-EN_01JD3W7Q0B2C4D6E8F0G2H4J6M'],
      }),
    ),
    reason: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Why, kept with the refund and shown to the vendor.',
        examples: ['Goodwill: outage on 2026-11-20'],
      }),
    ),
  },
  {
    additionalProperties: false,
    description: "opentill's own, optional: refund part of a payment, or another than the latest.",
  },
);

export const CancelBody = Type.Object(
  {},
  { additionalProperties: false, description: 'Nothing: cancel takes no fields.' },
);

export const Price = Type.Object(
  {
    currency: text('ISO 4217 code, any case.', 'USD'),
    value: Type.Union([Type.Number(), Type.String()], {
      description: "Net price (before tax) in the currency's major unit, with at most its decimals.",
      examples: [20],
    }),
  },
  { description: 'A net price in one currency.' },
);
/** `prices` as the schema declares it (an array) or as the samples send it (a serialized string). */
export const Prices = Type.Union([Type.Array(Price), Type.String()], {
  description:
    'Net prices, USD required; a currency not listed is converted from USD. Also accepted as a string holding the serialized array.',
  examples: [[{ currency: 'USD', value: 20 }]],
});

const PAYLOAD_WORDS =
  'Your own data for the purchase, at most 4999 characters (encrypt it on your side); null for none.';

export const CustomizeBody = Type.Object(
  {
    prices: Prices,
    description: Type.Optional(
      Type.String({
        maxLength: 10000,
        description: "Shown at checkout instead of the product's description.",
        examples: ['Team plan for Example GmbH, 25 seats'],
      }),
    ),
    payload: Type.Optional(nullable(text(`${PAYLOAD_WORDS} Overrides the client script's.`, '{"userId":42}'))),
    transactionIdToMigrate: Type.Optional(
      text(
        'An active subscription this purchase replaces (an upgrade or downgrade): the value left on it delays the first charge.',
        'TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K',
        { maxLength: 100 },
      ),
    ),
    expiresIn: Type.Optional(
      Type.Number({ description: 'Seconds until the link expires, 1 to 315360000; absent: never.', examples: [86400] }),
    ),
    userFirstName: Type.Optional(text('Prefills the first name at checkout.', 'Ada', { maxLength: 200 })),
    userLastName: Type.Optional(text('Prefills the last name at checkout.', 'Lovelace', { maxLength: 200 })),
    userMail: Type.Optional(
      text('The only e-mail that may buy through the link (not editable at checkout).', 'ada@example.com', {
        maxLength: 254,
      }),
    ),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "opentill's own: the seats the link sells, fixed, within a per-seat product's range; `prices` are then per seat. Absent: the buyer chooses.",
        examples: [25],
      }),
    ),
  },
  { additionalProperties: false, description: 'The customization: prices, and optionally who and until when.' },
);

const CUSTOMIZED_ID = 'PC_01JD3W9K4M6P8R0T2V4X6Z8B0D';

export const CustomizeResult = Type.Object(
  {
    link: text(
      'The payment link of the customized product.',
      `https://pay.example.com/sandbox/payment/product/${CUSTOMIZED_ID}`,
    ),
    customizedProductId: text(
      'The customized product id: use it as a product id in the client script too.',
      CUSTOMIZED_ID,
    ),
    customProductId: text('The same as customizedProductId (the name some clients read).', CUSTOMIZED_ID),
  },
  { description: 'The customized product and its payment link.' },
);

export const ChargeVaultedBody = Type.Object(
  {
    prices: Prices,
    chargeDescription: Type.Optional(text('Shown on the invoice.', 'API calls, November 2026', { maxLength: 1000 })),
  },
  { additionalProperties: false, description: 'What to charge.' },
);

export const VaultedChargeResult = Type.Object(
  {
    currency: text('The currency charged: that of the saved card’s purchase.', 'EUR'),
    deactivation: Type.Boolean({
      description:
        'True when the card can no longer be charged: the vaulted transaction became VAULTED_STATUS_INACTIVE.',
      examples: [false],
    }),
    price: Type.Number({ description: 'Total charged, tax included.', examples: [11.9] }),
    priceS: text("price with exactly the currency's decimals.", '11.90'),
    taxValue: Type.Number({ description: 'Tax of the charge.', examples: [1.9] }),
    taxValueS: text("taxValue with exactly the currency's decimals.", '1.90'),
    netValue: Type.Number({ description: 'Net of the charge (before tax).', examples: [10] }),
    netValueS: text("netValue with exactly the currency's decimals.", '10.00'),
    status: Type.String({
      enum: ['SUCCESS', 'FAILED', 'PENDING'],
      description:
        'SUCCESS: charged. FAILED: declined, nothing charged. PENDING (answered with 202): the provider has not confirmed yet; retry with the same Idempotency-Key',
      examples: ['SUCCESS'],
    }),
    message: nullable(text('Why it failed or is pending; null on success.', null)),
  },
  { description: 'The outcome of a charge of a saved card.' },
);

export const UpdateTransactionBody = Type.Object(
  {
    assignEmail: Type.Optional(
      text('Your sign-up e-mail for the customer; it then has priority over email.', 'user-42@yourapp.example', {
        maxLength: 254,
      }),
    ),
    payload: Type.Optional(nullable(text(PAYLOAD_WORDS, '{"userId":42}'))),
  },
  {
    additionalProperties: false,
    description: 'Either field: assignEmail assigns an e-mail, payload replaces the payload.',
  },
);

export const LicenceStatus = Type.Object(
  {
    status: Type.String({
      enum: ['ACTIVE', 'INACTIVE', 'NOT_FOUND'],
      description:
        'ACTIVE: paid, active, in trial, or cancelled but paid up. INACTIVE: refunded, cancelled, failed. NOT_FOUND: no such key for this product.',
      examples: ['ACTIVE'],
    }),
    productId: text('The product asked about.', 'TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'),
    transactionId: nullable(
      text('The purchase that issued the key; null when NOT_FOUND.', 'TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'),
    ),
    licence: text('The key asked about.', 'K7Q2M-4T6V8-X0Z2B-4D6F8-H0J2L'),
    activations: nullable(
      Type.Object(
        {
          used: Type.Integer({ description: 'Instances the key is activated on.', examples: [2] }),
          limit: nullable(Type.Integer({ description: 'How many it may be; null: no limit.', examples: [3] })),
        },
        {
          description:
            "opentill's own addition: how many activations the key uses and its limit (GET /v1/licences/{key} lists them); null when NOT_FOUND.",
          examples: [{ used: 2, limit: 3 }],
        },
      ),
    ),
  },
  { description: "A licence key's state." },
);

export const Ok = Type.Object(
  {
    id: text('The transaction id.', 'TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'),
    transactionStatus: text('Its status now.', 'SUBSCRIPTION_STATUS_CANCELLED_PENDING'),
    changed: Type.Optional(
      Type.Boolean({ description: 'False when it was already cancelled: nothing changed.', examples: [true] }),
    ),
  },
  { description: 'Done.' },
);

/** A money movement the payment provider has not confirmed yet (docs/decisions.md §10a). */
export const PendingBody = Type.Object(
  {
    status: Type.Literal('PENDING', { description: 'Not confirmed yet.', examples: ['PENDING'] }),
    message: Type.String({
      description: 'What happens next: retry with the same Idempotency-Key to learn the outcome',
      examples: ['The payment provider has not confirmed the refund yet; retry with the same Idempotency-Key.'],
    }),
  },
  { description: 'Accepted, not confirmed yet.' },
);

/** A response schema with the description the OpenAPI document shows for the answer. */
export const described = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description }) as T;

/** The error body under one status's description (no $id: each status is its own copy). */
const errorAnswer = (description: string) =>
  Type.Object(ErrorBody.properties, { description: `${description} The body says what is wrong and how to fix it.` });

export const errorResponses = {
  400: errorAnswer(
    'Bad input (INVALID_INPUT, USD_PRICE_REQUIRED, PAYLOAD_TOO_LONG, INVALID_EMAIL; an unknown field where the call refuses them), or an operation that does not fit the state of what it names (INVALID_STATE). Nothing was changed.',
  ),
  401: errorAnswer(
    'UNAUTHORIZED: the Authorization header is missing or is not a credential of this environment (a sandbox credential works only at the sandbox server, a production one only at production).',
  ),
  /** A production credential of a vendor that may not use production yet (an open sign-up; docs/decisions.md §19). */
  403: errorAnswer(
    'FORBIDDEN: production is not enabled for this vendor yet, or the seller may not sell now (suspended, or its identity is incomplete).',
  ),
  404: errorAnswer(
    "NOT_FOUND: no such record for this vendor and environment. Another vendor's record is also 404, so ids cannot be probed.",
  ),
  409: errorAnswer(
    'IDEMPOTENCY_CONFLICT: this Idempotency-Key was used with another body; or REQUEST_IN_PROGRESS / PAYMENT_PENDING: the first request with this key is still running (see Retry-After).',
  ),
  429: errorAnswer('RATE_LIMITED: too many requests from this credential or address; retry after Retry-After seconds.'),
};

/** The body of a call that takes none (archive a product): absent, empty, or `{}`. */
export const EmptyBody = Type.Object(
  {},
  { additionalProperties: false, description: 'Nothing: this call takes no fields.' },
);

/**
 * Route option of the API's busiest routes: the presenter's object is written by JSON.stringify, not
 * by the serializer Fastify compiles from the response schema. Measured under load on the read by id,
 * in three alternating pairs of runs, the compiled serializer cost 10 µs of CPU more per request (113
 * against 102); alone in a loop the two cost the same, but the compiled code runs cold between
 * requests and the built-in does not. The schema still documents the answer, and
 * test/api/response-contract.test.ts holds every answer of these routes to it, no field more or less.
 */
export const stringified = { serializerCompiler: () => JSON.stringify } as const;
